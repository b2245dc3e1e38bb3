import { afterEach, describe, expect, it } from "vitest";
import type { FaultConfig } from "../../src/emulator";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

const running: TestEmulator[] = [];

async function start(options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const emulator = await startTestEmulator({ extraRoutes: coreTestRoutes, ...options });
  running.push(emulator);
  return emulator;
}

afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

/** What a client sees for each of `count` sequential calls: a status or `reset`. */
async function outcomes(
  emulator: TestEmulator,
  count: number,
  method = "GET",
  path = "/v1/_test/whoami",
) {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const answer = await emulator.call(
        method,
        path,
        method === "POST" ? { json: { text: `n${i}` } } : {},
      );
      seen.push(String(answer.status));
    } catch {
      seen.push("reset");
    }
  }
  return seen;
}

describe("rate limits", () => {
  it("sends RateLimit headers and answers 429 with Retry-After once the burst is spent", async () => {
    const emulator = await start({ rateLimit: { burst: 3, rate_per_second: 0.5 } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await emulator.call("GET", "/v1/_test/whoami"));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers["ratelimit-remaining"])).toEqual(["2", "1", "0", "0"]);
    for (const answer of answers) expect(answer.headers["ratelimit-limit"]).toBe("3");
    const refused = answers[3];
    expect(refused?.body).toMatchObject({ success: false, code: "rate_limited" });
    expect(Number(refused?.headers["retry-after"])).toBe(2);
    expect(Number(refused?.headers["ratelimit-reset"])).toBeGreaterThanOrEqual(2);
  });

  it("counts a 429 under the route the request would have matched", async () => {
    const emulator = await start({ rateLimit: { burst: 1, rate_per_second: 0.1 } });
    await emulator.call("GET", "/v1/_test/notes");
    expect((await emulator.call("GET", "/v1/_test/notes")).status).toBe(429);
    const counters = emulator.admin.counters();
    expect(counters.find((c) => c.route === "/v1/_test/notes")?.counts).toEqual({
      "200": 1,
      "429": 1,
    });
    expect(counters.find((c) => c.route === "(unmatched)")).toBeUndefined();
    expect(emulator.admin.requests(1)[0]).toMatchObject({ route: "/v1/_test/notes", status: 429 });
  });

  it("limits each key on its own", async () => {
    const emulator = await start({ rateLimit: { burst: 1, rate_per_second: 0.1 } });
    const other = await emulator.admin.createAccount();
    expect((await emulator.call("GET", "/v1/_test/whoami")).status).toBe(200);
    expect((await emulator.call("GET", "/v1/_test/whoami")).status).toBe(429);
    expect((await emulator.call("GET", "/v1/_test/whoami", { key: other.api_key })).status).toBe(
      200,
    );
  });

  it("can be switched off and reconfigured through the admin API", async () => {
    const emulator = await start({ rateLimit: { burst: 1, rate_per_second: 0.1 } });
    const config = await emulator.call("PUT", "/_emulator/rate-limit", {
      json: { enabled: false },
    });
    expect(config.body).toMatchObject({ enabled: false, burst: 1 });
    expect(await outcomes(emulator, 3)).toEqual(["200", "200", "200"]);
  });
});

describe("faults", () => {
  const flaky: FaultConfig = {
    seed: 42,
    rules: [
      { path: "/v1/_test/whoami", status_500: 0.2, status_503: 0.2, status_429: 0.1, reset: 0.1 },
    ],
  };

  it("gives the same sequence of outcomes for the same seed, and another for another seed", async () => {
    const emulator = await start();
    await emulator.call("PUT", "/_emulator/faults", { json: flaky });
    const first = await outcomes(emulator, 30);
    await emulator.call("PUT", "/_emulator/faults", { json: flaky });
    const again = await outcomes(emulator, 30);
    await emulator.call("PUT", "/_emulator/faults", { json: { ...flaky, seed: 7 } });
    const other = await outcomes(emulator, 30);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first)).toEqual(new Set(["200", "500", "503", "429", "reset"]));
  });

  it("only touches the routes a rule names, and stops after its limit", async () => {
    const emulator = await start({
      faults: {
        seed: 1,
        rules: [{ method: "POST", path: "/v1/_test/notes", status_503: 1, limit: 2 }],
      },
    });
    expect(await outcomes(emulator, 3)).toEqual(["200", "200", "200"]);
    expect(await outcomes(emulator, 3, "POST", "/v1/_test/notes")).toEqual(["503", "503", "201"]);
    const faults = await emulator.call("GET", "/_emulator/faults");
    expect(faults.body).toMatchObject({ injected: [2] });
  });

  it("answers an injected 429 like a real one, with Retry-After", async () => {
    const emulator = await start({ faults: { seed: 1, rules: [{ status_429: 1 }] } });
    const answer = await emulator.call("GET", "/v1/_test/whoami");
    expect(answer.status).toBe(429);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.body).toMatchObject({ code: "rate_limited" });
  });

  it("applies a mutation whose answer is lost (502 or reset), and never a GET", async () => {
    const emulator = await start({
      faults: {
        seed: 3,
        rules: [
          { path: "/v1/_test/notes", method: "POST", answer_lost: 1, limit: 1 },
          { path: "/v1/_test/servers", answer_lost: 1, answer_lost_as: "reset" },
          { path: "/v1/_test/notes*", answer_lost: 1 },
        ],
      },
    });
    const lost = await emulator.call("POST", "/v1/_test/notes", { json: { text: "applied" } });
    expect(lost.status).toBe(502);
    expect(lost.body).toMatchObject({ code: "unavailable" });
    await expect(emulator.call("POST", "/v1/_test/servers")).rejects.toThrow();
    const notes = await emulator.call("GET", "/v1/_test/notes");
    expect(notes.status).toBe(200);
    expect(notes.body).toEqual([expect.objectContaining({ text: "applied" })]);
    const account = await emulator.call("GET", "/_emulator/accounts/1");
    expect((account.body as { servers: unknown[] }).servers).toHaveLength(1);
  });

  it("adds latency from the configured range", async () => {
    const emulator = await start({ faults: { seed: 1, rules: [{ latency_ms: [120, 150] }] } });
    const started = performance.now();
    expect((await emulator.call("GET", "/v1/_test/whoami")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    const [entry] = emulator.admin.requests(1);
    expect(entry?.duration_ms).toBeGreaterThanOrEqual(115);
  });

  it("rejects fault rates that add up to more than 1", async () => {
    const emulator = await start();
    const answer = await emulator.call("PUT", "/_emulator/faults", {
      json: { seed: 1, rules: [{ status_500: 0.7, reset: 0.5 }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: "invalid_request",
      errors: [expect.objectContaining({ field: "rules[0]" })],
    });
  });
});
