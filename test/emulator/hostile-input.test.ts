/**
 * Hostile input against the emulator over real HTTPS: generated JSON bodies, multipart forms,
 * admin requests, console paths and junk requests of growing size and depth. Every one gets a
 * 4xx naming what is wrong (never a 500), the emulator still answers after each, and what grows
 * with the input is shown to grow linearly: by counting the work where it can be counted, else by
 * timing a large input against a small one in the same run under a generous bound (×4 the input,
 * at most ×8 the time), which catches a quadratic walk without flaking on a busy machine.
 * docs/emulator-limits.md lists every bound these tests try to break.
 */
import { connect } from "node:tls";
import fc from "fast-check";
import { FormData, request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { UpdateUserProfileRequestSchema } from "../../src/api/schemas/account";
import { checkRequest } from "../../src/api/schemas/common";
import { ACTIONS, FAULT_RATES } from "../../src/emulator/console/actions";
import { MAX_CLOCK_OFFSET_MS } from "../../src/emulator/service/clock";
import { forEachJsonValue, jsonTooDeep, MAX_JSON_DEPTH } from "../../src/lib/json-bounds";
import { YamlSource } from "../../src/lib/yaml-document";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;
const accessLog: string[] = [];
beforeAll(async () => {
  emulator = await startTestEmulator({ log: (line) => accessLog.push(line) });
});
afterAll(() => emulator.close());

/** After every hostile case: the emulator is alive and its clock still writes dates. */
async function stillAnswers(): Promise<void> {
  const answer = await emulator.call("GET", "/v1/plans");
  expect(answer.status).toBe(200);
  expect(Number.isNaN(Date.parse(answer.headers["date"] ?? ""))).toBe(false);
}

/** `[[[...]]]` (or `{"a":{"a":...}}`) nested `depth` deep, built without recursion. */
function nested(depth: number, kind: "array" | "object"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

const TOO_DEEP = (at: number) =>
  `Body nests arrays and objects more than ${MAX_JSON_DEPTH} deep (at character ${at}); at most ${MAX_JSON_DEPTH} levels are read`;

async function sendJson(method: string, path: string, text: string) {
  return emulator.call(method, path, {
    body: text,
    headers: { "content-type": "application/json" },
  });
}

/**
 * How many times longer `large` takes than `small`: medians of `runs` timings each, taken in
 * turns so that a change in the machine's load falls on both alike. `floorMs` keeps a tiny small
 * timing from blowing the ratio up.
 */
async function timeRatio(
  small: () => unknown,
  large: () => unknown,
  floorMs: number,
  runs = 7,
): Promise<{ ratio: number; smallMs: number; largeMs: number }> {
  const times: [number[], number[]] = [[], []];
  await small(); // warm up
  for (let i = 0; i < runs; i++) {
    for (const [index, work] of [small, large].entries()) {
      const started = performance.now();
      await work();
      times[index as 0 | 1].push(performance.now() - started);
    }
  }
  const median = (list: number[]) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  const [smallMs, largeMs] = [median(times[0]), median(times[1])];
  return { ratio: largeMs / Math.max(smallMs, floorMs), smallMs, largeMs };
}

describe("JSON bodies nested past the bound", () => {
  it.each([
    ["POST", "/v1/tags"],
    ["POST", "/v1/users/me"],
    ["POST", "/_emulator/clock"],
    ["PUT", "/_emulator/faults"],
  ])("%s %s: 8,000 deep is a 400 naming the bound", async (method, path) => {
    for (const kind of ["array", "object"] as const) {
      const answer = await sendJson(method, path, nested(8000, kind));
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        success: false,
        code: "invalid_request",
        message: TOO_DEEP(kind === "array" ? 65 : 5 * 64 + 1),
      });
      await stillAnswers();
    }
  });

  it("refuses every generated body deeper than the bound, wherever the depth is", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: MAX_JSON_DEPTH + 1, max: 20_000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom("array", "object"),
        async (depth, width, kind) => {
          // `width` shallow siblings before the deep one: the bound is found where it is passed.
          const siblings = Array.from({ length: width }, () => '"x"').join(",");
          const text = `[${siblings},${nested(depth - 1, kind)}]`;
          const answer = await sendJson("POST", "/v1/tags", text);
          expect(answer.status).toBe(400);
          expect((answer.body as { message: string }).message).toMatch(/^Body nests arrays/);
          await stillAnswers();
        },
      ),
      { numRuns: 12 },
    );
  });

  it("accepts the bound itself: 64 levels are parsed and then checked by the schema", async () => {
    const answer = await sendJson("POST", "/v1/tags", `{"name":${nested(63, "array")}}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: expect.arrayContaining([{ field: "name", message: "expected a string" }]),
    });
  });

  it("ignores brackets inside strings and escaped quotes when measuring depth", () => {
    expect(jsonTooDeep(`["${"[".repeat(100)}", "\\"${"{".repeat(100)}"]`)).toBeUndefined();
    expect(jsonTooDeep(nested(65, "array"))).toEqual({ limit: 64, offset: 64 });
  });
});

describe("the cost of checking a body grows linearly", () => {
  it("visits each value once, however deep (counted)", () => {
    for (const size of [10_000, 40_000]) {
      // Built without recursion; JSON.parse itself is iterative.
      const deep: unknown = JSON.parse(nested(size, "array"));
      expect(forEachJsonValue(deep, () => undefined)).toBe(size);
      const wide = Array.from({ length: size }, (_, i) => ({ [`k${i}`]: i }));
      expect(forEachJsonValue(wide, () => undefined)).toBe(1 + 2 * size);
    }
  });

  it("reports a lone surrogate at depth 40,000 with its path, without the stack", () => {
    const deep = JSON.parse(`${"[".repeat(40_000)}"\\ud800"${"]".repeat(40_000)}`);
    const checked = checkRequest(UpdateUserProfileRequestSchema, deep);
    expect(checked.success).toBe(false);
    const first = checked.success ? undefined : checked.fieldErrors[0];
    expect(first?.field).toBe("[0]".repeat(40_000));
    expect(first?.message).toBe("must be well-formed Unicode; it holds a lone surrogate (U+D800)");
  });

  it("answers 40k values in at most 8× the time of 10k (timed, same run)", async () => {
    // Every string is walked (the Unicode check); the schema then refuses `data` in one line.
    const body = (n: number) => JSON.stringify({ name: "x", data: Array(n).fill("a") });
    const [small, large] = [body(10_000), body(40_000)];
    const timing = await timeRatio(
      () => sendJson("POST", "/v1/tags", small),
      () => sendJson("POST", "/v1/tags", large),
      1,
    );
    expect(timing.ratio, JSON.stringify(timing)).toBeLessThanOrEqual(8);
  });

  it("measures depth in one pass: 4× the text takes at most 8× the time", async () => {
    const small = "[1,".repeat(250_000);
    const large = "[1,".repeat(1_000_000);
    const timing = await timeRatio(
      () => jsonTooDeep(small, Number.MAX_SAFE_INTEGER),
      () => jsonTooDeep(large, Number.MAX_SAFE_INTEGER),
      0.5,
    );
    expect(timing.ratio, JSON.stringify(timing)).toBeLessThanOrEqual(8);
  });
});

describe("admin values past what the emulator can represent", () => {
  it("refuses a clock offset past 100 years and keeps answering (it used to exit)", async () => {
    const answer = await emulator.call("POST", "/_emulator/clock", {
      json: { offset_ms: 8_640_000_000_000_000 },
    });
    const message = `expected an integer from -${MAX_CLOCK_OFFSET_MS} to ${MAX_CLOCK_OFFSET_MS} (100 years either way)`;
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: "offset_ms", message }] });
    await stillAnswers();
  });

  it("refuses an advance that would carry the clock past the bound", async () => {
    await emulator.call("POST", "/_emulator/clock", { json: { offset_ms: MAX_CLOCK_OFFSET_MS } });
    const answer = await emulator.call("POST", "/_emulator/clock", { json: { advance_ms: 1 } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: [
        {
          field: "advance_ms",
          message: `would move the clock ${MAX_CLOCK_OFFSET_MS + 1} ms from real time, past ±${MAX_CLOCK_OFFSET_MS} ms (100 years)`,
        },
      ],
    });
    expect(emulator.admin.clock().offset_ms).toBe(MAX_CLOCK_OFFSET_MS);
    await stillAnswers();
    emulator.admin.setClock({ offset_ms: 0 });
  });

  it("allows only real methods in a fault rule, naming the field", async () => {
    const answer = await emulator.call("PUT", "/_emulator/faults", {
      json: { rules: [{ method: "PSOT", status_500: 1 }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: [
        {
          field: "rules[0].method",
          message: 'expected one of "GET", "POST", "PUT", "PATCH", "DELETE", "*"',
        },
      ],
    });
    const lower = await emulator.call("PUT", "/_emulator/faults", {
      json: { rules: [{ method: "delete", path: "/v1/_none" }] },
    });
    expect(lower.body).toMatchObject({ rules: [{ method: "DELETE", path: "/v1/_none" }] });
    emulator.admin.clearFaults();
  });

  it("keeps Retry-After within 100 s: rate_per_second is from 0.01 to 1,000,000", async () => {
    for (const rate of [1e-300, 0.009, 1_000_001]) {
      const answer = await emulator.call("PUT", "/_emulator/rate-limit", {
        json: { rate_per_second: rate },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        errors: [{ field: "rate_per_second", message: "expected a number from 0.01 to 1000000" }],
      });
    }
    emulator.admin.setRateLimit({ rate_per_second: 0.01, burst: 1 });
    try {
      await emulator.call("GET", "/v1/plans");
      const refused = await emulator.call("GET", "/v1/plans");
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBe("100");
    } finally {
      emulator.admin.setRateLimit({ rate_per_second: 50, burst: 100 });
    }
  });

  it("answers any generated admin request with a 2xx or a 4xx, never a 500", async () => {
    const value = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(8.64e15, -8.64e15, 1e308, -1e-300, 2 ** 53, 0),
      fc.string({ maxLength: 30 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 3 }),
    );
    const routes = [
      ["POST", "/_emulator/clock", ["offset_ms", "advance_ms"]],
      ["PUT", "/_emulator/rate-limit", ["rate_per_second", "burst", "enabled"]],
      ["PUT", "/_emulator/lifecycle", ["mode", "durations"]],
      ["POST", "/_emulator/lifecycle/fail-provisioning", ["next", "server_ids"]],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.dictionary(
          fc.constantFrom(
            "offset_ms",
            "advance_ms",
            "rate_per_second",
            "burst",
            "enabled",
            "mode",
            "durations",
            "next",
            "server_ids",
            "__proto__",
            "constructor",
          ),
          value,
          { maxKeys: 3 },
        ),
        fc.array(
          fc.record(
            {
              method: fc.string({ maxLength: 8 }),
              path: fc.string({ maxLength: 20 }),
              status_500: value,
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        async ([method, path], body, rules) => {
          const answers = [
            await emulator.call(method, path, { json: body }),
            await emulator.call("PUT", "/_emulator/faults", { json: { rules } }),
          ];
          for (const answer of answers) expect([200, 201, 400, 404]).toContain(answer.status);
          emulator.admin.clearFaults();
          emulator.admin.setClock({ offset_ms: 0 });
          emulator.admin.setRateLimit({ rate_per_second: 50, burst: 100, enabled: true });
          await stillAnswers();
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** A signed-in console session: its cookie and its forms' CSRF token. */
async function consoleSession(): Promise<{ cookie: string; csrf: string }> {
  const signedIn = await request(`${emulator.endpoint}/_emulator/console/sign-in`, {
    method: "POST",
    dispatcher: emulator.dispatcher,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: emulator.apiKey }).toString(),
  });
  await signedIn.body.text();
  const cookie = String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
  const page = await request(`${emulator.endpoint}/_emulator/console/settings`, {
    dispatcher: emulator.dispatcher,
    headers: { cookie },
  });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.body.text())?.[1] ?? "";
  return { cookie, csrf };
}

describe("names from the request are looked up as own entries only", () => {
  it("answers a console asset named like an Object.prototype member with a 404 page", async () => {
    const { cookie } = await consoleSession();
    for (const name of [...Object.getOwnPropertyNames(Object.prototype), "prototype"]) {
      const answer = await request(`${emulator.endpoint}/_emulator/console/assets/${name}`, {
        dispatcher: emulator.dispatcher,
        headers: { cookie },
      });
      const text = await answer.body.text();
      expect({ name, status: answer.statusCode }).toEqual({ name, status: 404 });
      expect(text).toContain(`The console has no page assets/${name}.`);
    }
    const css = await request(`${emulator.endpoint}/_emulator/console/assets/console.css`, {
      dispatcher: emulator.dispatcher,
    });
    await css.body.text();
    expect(css.statusCode).toBe(200);
  });

  it("treats a ticket form field named __proto__ or constructor as an unknown field", async () => {
    for (const name of ["__proto__", "constructor", "toString"]) {
      const body = new FormData();
      body.append("subject", "s");
      body.append("content", "c");
      body.append(name, "x");
      const answer = await emulator.call("POST", "/v1/tickets", { body });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ errors: [{ field: name, message: "unknown field" }] });
    }
  });

  it("refuses __proto__ as the name of a seed entry, naming it (it was a 500)", async () => {
    const document = [
      "accounts:",
      "  - name: proto-seed",
      "    roles:",
      "      __proto__:",
      "        permissions: [servers:read]",
      "    users:",
      "      bob:",
      "        role: __proto__",
    ].join("\n");
    const answer = await emulator.call("POST", "/_emulator/seed", {
      body: document,
      headers: { "content-type": "application/yaml" },
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(
      'accounts[0].roles.__proto__: \\"__proto__\\" cannot name a seed entry; choose another name',
    );
  });
});

describe("a seed document being read", () => {
  it("holds no one: a request made while it is read commits before the seed does", async () => {
    // The document was read inside the seed's transaction, so every other request waited for
    // all of it (a 439 KB document held another client 1.1 s). `npm run bench manifest-scale`
    // has the figures.
    const parse = YamlSource.parse.bind(YamlSource);
    let during: Promise<{ account_id: number }> | undefined;
    const spy = vi.spyOn(YamlSource, "parse").mockImplementation((text, file) => {
      during ??= emulator.admin.createAccount({ name: "made-while-reading" });
      return parse(text, file);
    });
    try {
      const answer = await emulator.call("POST", "/_emulator/seed", {
        body: "accounts:\n  - name: read-first\n",
        headers: { "content-type": "application/yaml" },
      });
      expect(answer.status).toBe(201);
      const seeded = answer.body as { accounts: { account_id: number }[] };
      const made = await during;
      expect(made?.account_id).toBe((seeded.accounts[0]?.account_id ?? 0) - 1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("console forms", () => {
  it("answers any generated form on any action with a redirect or a 4xx page, never a 500", async () => {
    const { cookie, csrf } = await consoleSession();
    const names = [
      "method",
      "path",
      "latency_min",
      "latency_max",
      "limit",
      "rate_per_second",
      "burst",
      "enabled",
      "mode",
      "provisioning",
      "stopping",
      ...FAULT_RATES,
    ];
    const values = fc.oneof(
      fc.constantFrom(
        "1e-300",
        "8.64e15",
        "Infinity",
        "-0",
        "0x10",
        "1e400",
        "PSOT",
        "",
        "__proto__",
      ),
      fc.string({ maxLength: 40 }),
      fc.double().map(String),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ACTIONS.filter((action) => action !== "reset")),
        fc.array(
          fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 10 })), values),
          {
            maxLength: 12,
          },
        ),
        async (action, fields) => {
          const form = new URLSearchParams([["csrf", csrf], ...fields]);
          const answer = await request(`${emulator.endpoint}/_emulator/console/${action}`, {
            method: "POST",
            dispatcher: emulator.dispatcher,
            headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
            body: form.toString(),
          });
          await answer.body.text();
          expect([303, 400]).toContain(answer.statusCode);
          emulator.admin.clearFaults();
          emulator.admin.setRateLimit({ rate_per_second: 50, burst: 100, enabled: true });
          emulator.admin.setLifecycle({ mode: "auto" });
          await stillAnswers();
        },
      ),
      { numRuns: 40 },
    );
  });

  it("refuses a form over 16 KB with a 413 page and goes on answering", async () => {
    const { cookie, csrf } = await consoleSession();
    const answer = await request(`${emulator.endpoint}/_emulator/console/rate-limit`, {
      method: "POST",
      dispatcher: emulator.dispatcher,
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, burst: "1".repeat(20_000) }).toString(),
    });
    expect(answer.statusCode).toBe(413);
    expect(await answer.body.text()).toContain("Request body over 16384 bytes");
    await stillAnswers();
  });
});

describe("multipart forms of growing size", () => {
  it("answers every generated ticket form with a 201 or a 4xx, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 200 })), {
          maxLength: 40,
        }),
        fc.array(fc.integer({ min: 0, max: 4096 }), { maxLength: 4 }),
        async (fields, files) => {
          const body = new FormData();
          for (const [name, value] of fields) body.append(name, value);
          files.forEach((size, i) => {
            body.append("attachments", new Blob([Buffer.alloc(size)]), `f${i}.bin`);
          });
          const answer = await emulator.call("POST", "/v1/tickets", { body });
          expect([201, 400, 413, 415]).toContain(answer.status);
          await stillAnswers();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("answers 4,000 form fields in at most 8× the time of 1,000", async () => {
    const form = (n: number) => {
      const body = new FormData();
      for (let i = 0; i < n; i++) body.append(`f${i}`, "x");
      return body;
    };
    const timing = await timeRatio(
      () => emulator.call("POST", "/v1/tickets", { body: form(1000) }),
      () => emulator.call("POST", "/v1/tickets", { body: form(4000) }),
      1,
    );
    expect(timing.ratio, JSON.stringify(timing)).toBeLessThanOrEqual(8);
  });
});

describe("requests that must not grow the emulator", () => {
  it("counts 200 junk methods on 200 connections under one key", async () => {
    emulator.admin.clearRequests();
    const port = Number(new URL(emulator.endpoint).port);
    for (let i = 0; i < 200; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect({ host: "127.0.0.1", port, ca: emulator.caCert }, () => {
          socket.write(`JUNK${i} /junk/${i} HTTP/1.1\r\nHost: x\r\n\r\n`);
        });
        socket.on("data", () => socket.destroy());
        socket.on("close", () => resolve());
        socket.on("error", () => resolve());
      });
    }
    expect(emulator.admin.counters()).toEqual([
      { method: "(other)", route: "(unmatched)", counts: { "400": 200 }, total: 200 },
    ]);
    expect(emulator.admin.requests(1000)).toHaveLength(200);
  });

  it("answers a request target that is no path (//[) with a 400 and goes on (it ended the process)", async () => {
    const port = Number(new URL(emulator.endpoint).port);
    const answer = await new Promise<string>((resolve) => {
      let received = "";
      const socket = connect({ host: "127.0.0.1", port, ca: emulator.caCert }, () => {
        socket.write(
          `GET //[ HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${emulator.apiKey}\r\nConnection: close\r\n\r\n`,
        );
      });
      socket.on("data", (chunk) => {
        received += String(chunk);
      });
      socket.on("close", () => resolve(received));
    });
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    expect(answer.slice(answer.indexOf("\r\n\r\n") + 4)).toBe(
      '{"success":false,"message":"The request target is not a valid path","code":"invalid_request"}',
    );
    await stillAnswers();
  });

  it("keeps the request log to its capacity and a logged path to 200 characters", async () => {
    emulator.admin.clearRequests();
    for (let i = 0; i < 3; i++) await emulator.call("GET", `/v1/${"p".repeat(5000)}${i}`);
    const entries = emulator.admin.requests(10);
    expect(entries.map((e) => e.path.length)).toEqual([200, 200, 200]);
    expect(emulator.admin.counters()).toEqual([
      { method: "GET", route: "(unmatched)", counts: { "404": 3 }, total: 3 },
    ]);
  });

  /** Sends `text` on a connection of its own, then hangs up. */
  async function hangUpAfter(text: string): Promise<void> {
    const port = Number(new URL(emulator.endpoint).port);
    await new Promise<void>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port, ca: emulator.caCert }, () => {
        socket.write(text, () => socket.destroy());
      });
      socket.on("close", () => resolve());
    });
  }

  it("logs a client that hangs up mid-body as aborted, without a stack trace", async () => {
    emulator.admin.clearRequests();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await hangUpAfter(
        `POST /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${emulator.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
      );
      await vi.waitFor(() => {
        expect(emulator.admin.counters()).toEqual([
          { method: "POST", route: "/v1/tags", counts: { aborted: 1 }, total: 1 },
        ]);
      });
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toBe("");
      expect(accessLog.at(-1)).toMatch(
        / --- POST \/v1\/tags \d+ms acct=1 user=1 req_\w+ aborted by the client$/,
      );

      // The console (beside the pipeline) too: a sign-in form cut short prints nothing. The next
      // console request answered shows the emulator has handled the hang-up before it.
      await hangUpAfter(
        "POST /_emulator/console/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nkey=",
      );
      await consoleSession();
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toBe("");
    } finally {
      stderr.mockRestore();
    }
  });

  it("applies a whole request whose client hangs up during a delay fault, and logs it as aborted", async () => {
    emulator.admin.clearRequests();
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/tags", latency_ms: [300, 300] }],
    });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const body = '{"name":"held-tag","color":"#3366ff","data":"","server_ids":[]}';
      await hangUpAfter(
        `POST /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${emulator.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      // Applied after its delay as a real service would: the tag exists; the answer is dropped.
      await vi.waitFor(() => {
        expect(emulator.admin.counters()).toEqual([
          { method: "POST", route: "/v1/tags", counts: { aborted: 1 }, total: 1 },
        ]);
      });
      const tags = await emulator.call("GET", "/v1/tags");
      expect(tags.status).toBe(200);
      expect((tags.body as { name: string }[]).filter((t) => t.name === "held-tag")).toHaveLength(
        1,
      );
      // The log says what the service did (201) and that its answer went to no one.
      const [held] = emulator.admin.requests(100).filter((e) => e.method === "POST");
      expect(held).toMatchObject({ route: "/v1/tags", status: 201, aborted: true });
      expect(held?.duration_ms).toBeGreaterThanOrEqual(295);
      expect(accessLog.filter((line) => line.includes(held?.request_id ?? "?"))).toEqual([
        expect.stringMatching(
          / --- POST \/v1\/tags \d+ms acct=1 user=1 req_\w+ aborted by the client$/,
        ),
      ]);

      // One cut short while held is not applied, and is logged as aborted too once its delay ends.
      await hangUpAfter(
        `POST /v1/tags HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${emulator.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${body.slice(0, -1)}`,
      );
      await vi.waitFor(() => {
        expect(emulator.admin.counters()).toContainEqual({
          method: "POST",
          route: "/v1/tags",
          counts: { aborted: 2 },
          total: 2,
        });
      });
      const after = (await emulator.call("GET", "/v1/tags")).body as { name: string }[];
      expect(after.filter((t) => t.name === "held-tag")).toHaveLength(1);
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toBe("");
    } finally {
      stderr.mockRestore();
      emulator.admin.clearFaults();
    }
  });
});
