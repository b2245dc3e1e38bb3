/**
 * Keys as an attacker and a careless administrator meet them: a key another user holds is never
 * handed out again, guessing keys is throttled per address (the API, the admin API and the
 * console's sign-in alike), the bootstrap key has a minimum length, and no admin route shows a
 * key or its hash.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function fresh(): Promise<TestEmulator> {
  emulator = await startTestEmulator({ extraRoutes: coreTestRoutes });
  return emulator;
}

describe("a key another user holds (POST /_emulator/accounts)", () => {
  it("refuses the bootstrap key with 409 naming api_key, and creates nothing", async () => {
    const emu = await fresh();
    const answer = await emu.call("POST", "/_emulator/accounts", {
      json: { name: "Copycat", api_key: emu.apiKey },
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      code: "conflict",
      message:
        "api_key: this API key already belongs to the bootstrap administrator in this emulator; every key opens one user, so choose another",
      errors: [
        {
          field: "api_key",
          message:
            "this API key already belongs to the bootstrap administrator in this emulator; every key opens one user, so choose another",
        },
      ],
    });
    expect(emu.admin.accounts().map((a) => a.name)).toEqual(["Emulator Admin"]);
    // The key still opens the bootstrap administrator's account, as before.
    expect((await emu.call("GET", "/v1/_test/whoami")).body).toEqual({ account_id: 1, user_id: 1 });
  });

  it("refuses another account's owner key, in-process too, in the words of the seed route", async () => {
    const emu = await fresh();
    const key = "first-owner-key-0123456789";
    const first = await emu.admin.createAccount({ name: "First", api_key: key });
    const taken = `this API key already belongs to user ${first.user_id} of account ${first.account_id} in this emulator; every key opens one user, so choose another`;
    await expect(emu.admin.createAccount({ name: "Second", api_key: key })).rejects.toThrow(
      `api_key: ${taken}`,
    );
    const seeded = await emu.call("POST", "/_emulator/seed", {
      headers: { "content-type": "application/yaml" },
      body: `accounts:\n  - name: Second\n    api_key: ${key}\n`,
    });
    expect(seeded.status).toBe(400);
    expect(JSON.stringify(seeded.body)).toContain(`accounts[0].api_key: ${taken}`);
    expect(emu.admin.accounts()).toHaveLength(2);
  });

  it("refuses a key shorter than 16 characters or one a header cannot carry, naming api_key", async () => {
    const emu = await fresh();
    for (const [key, message] of [
      ["a", "must be at least 16 characters (got 1); a generated key is used when none is given"],
      [
        "has spaces in it 0123",
        "must be visible ASCII characters without spaces, as an Authorization header carries it",
      ],
      ["k".repeat(257), "must be at most 256 characters"],
    ] as const) {
      const answer = await emu.call("POST", "/_emulator/accounts", { json: { api_key: key } });
      expect(answer.status, key).toBe(400);
      expect((answer.body as { errors: unknown }).errors).toEqual([{ field: "api_key", message }]);
    }
  });
});

describe("guessing keys", () => {
  it("answers 401 to 20 wrong keys from one address, then 429 with Retry-After, even to the right key", async () => {
    const emu = await fresh();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      statuses.push((await emu.call("GET", "/v1/servers", { key: `cik_guess-${i}` })).status);
    }
    expect(statuses).toEqual([...Array(20).fill(401), 429, 429]);
    const right = await emu.call("GET", "/v1/_test/whoami");
    expect(right.status).toBe(429);
    expect(right.headers["retry-after"]).toBe("1");
    expect(right.body).toMatchObject({
      code: "rate_limited",
      message:
        "Too many failed authentications from this address: after 20 failures, one more attempt is allowed every 1 s; retry in 1 s",
    });
    // Counted in the request log, like every answer.
    const throttled = emu.admin.requests(100).filter((e) => e.status === 429);
    expect(throttled.map((e) => `${e.method} ${e.path}`)).toEqual([
      "GET /v1/servers",
      "GET /v1/servers",
      "GET /v1/_test/whoami",
    ]);
  });

  it("counts wrong keys on /_emulator/ against the same address; a reset forgets them", async () => {
    const emu = await fresh();
    for (let i = 0; i < 20; i++) {
      expect((await emu.call("GET", "/_emulator/info", { key: `cik_guess-${i}` })).status).toBe(
        401,
      );
    }
    expect((await emu.call("GET", "/_emulator/info")).status).toBe(429);
    expect((await emu.call("GET", "/v1/_test/whoami")).status).toBe(429);
    await emu.admin.reset();
    expect((await emu.call("GET", "/v1/_test/whoami")).status).toBe(200);
  });

  it("never counts a request that tries no key (no or malformed header) or a right one", async () => {
    const emu = await fresh();
    for (let i = 0; i < 30; i++) {
      expect((await emu.call("GET", "/v1/servers", { key: null })).status).toBe(401);
      const other = { key: null, headers: { authorization: `Bearer ${emu.apiKey}` } };
      expect((await emu.call("GET", "/v1/servers", other)).status).toBe(401);
    }
    const other = await emu.admin.createAccount({});
    for (let i = 0; i < 30; i++) {
      // A valid key that is not the bootstrap administrator's: 403 on /_emulator/, not a guess.
      expect((await emu.call("GET", "/_emulator/info", { key: other.api_key })).status).toBe(403);
    }
    expect((await emu.call("GET", "/v1/_test/whoami", { key: "cik_wrong" })).status).toBe(401);
  });

  it("throttles the console's sign-in the same way, shares the count with the API, and logs each attempt", async () => {
    const emu = await fresh();
    const signIn = async (key: string) => {
      const answer = await request(`${emu.endpoint}/_emulator/console/sign-in`, {
        method: "POST",
        dispatcher: emu.dispatcher,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ key }).toString(),
      });
      return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
    };
    for (let i = 0; i < 10; i++) {
      expect((await emu.call("GET", "/v1/servers", { key: `cik_guess-${i}` })).status).toBe(401);
    }
    for (let i = 0; i < 10; i++) expect((await signIn(`wrong-${i}`)).status).toBe(401);
    const refused = await signIn(emu.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.headers["set-cookie"]).toBeUndefined();
    expect(refused.text).toContain(
      "Too many failed authentications from this address: after 20 failures, one more attempt is allowed every 1 s; retry in 1 s",
    );
    const logged = emu.admin
      .requests(100)
      .filter((e) => e.path === "/_emulator/console/sign-in")
      .map((e) => e.status);
    expect(logged).toEqual([...Array(10).fill(401), 429]);
    const counter = emu.admin
      .counters()
      .find((c) => c.method === "POST" && c.route === "/_emulator/console/sign-in");
    expect(counter?.counts).toEqual({ "401": 10, "429": 1 });
  });
});

describe("the bootstrap key", () => {
  it("must be at least 16 characters: a one-character key is refused at start", async () => {
    await expect(startEmulator({ host: "127.0.0.1", port: 0, apiKey: "a" })).rejects.toThrow(
      "the bootstrap administrator's key (apiKey) must be at least 16 characters (got 1); a generated key is used when none is given; set another with CLOUDINFRA_EMULATOR_API_KEY (or apiKey in-process)",
    );
  });

  it("kept in a data dir by an older version, is checked the same way", async () => {
    const dir = mkdtempSync(join(tmpdir(), "auth-kept-"));
    try {
      writeFileSync(join(dir, "bootstrap-key"), "short-key\n", { mode: 0o600 });
      await expect(startEmulator({ host: "127.0.0.1", port: 0, dataDir: dir })).rejects.toThrow(
        `the bootstrap administrator's key (the key kept in ${join(dir, "bootstrap-key")}) must be at least 16 characters (got 9)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is refused at start when another user already holds it", async () => {
    // Two emulators share nothing in memory mode, so a data dir carries the other user's key.
    const dir = mkdtempSync(join(tmpdir(), "auth-bootstrap-"));
    try {
      const first = await startEmulator({ host: "127.0.0.1", port: 0, dataDir: dir });
      const other = await first.admin.createAccount({ api_key: "someone-elses-key-0123" });
      await first.close();
      await expect(
        startEmulator({
          host: "127.0.0.1",
          port: 0,
          dataDir: dir,
          apiKey: "someone-elses-key-0123",
        }),
      ).rejects.toThrow(
        `the bootstrap administrator's key cannot be this one: it already belongs to user ${other.user_id} of account ${other.account_id} in this emulator; set another with CLOUDINFRA_EMULATOR_API_KEY (or apiKey in-process)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what admin routes show of keys", () => {
  it("GET /_emulator/accounts/:id says whether a user has a key or a password, never a key or any hash of it", async () => {
    const emu = await fresh();
    const created = await emu.call("POST", "/v1/_test/users", { json: { role: "Read only" } });
    const userKey = (created.body as { api_key: string }).api_key;
    await emu.call("POST", "/v1/users/me", { json: { password: "correct horse battery staple" } });
    const answer = await emu.call("GET", "/_emulator/accounts/1");
    const text = JSON.stringify(answer.body);
    for (const secret of [emu.apiKey, userKey, "correct horse battery staple"]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(createHash("sha256").update(secret).digest("hex"));
    }
    expect(text).not.toContain("hash");
    const users = (answer.body as { users: Record<string, unknown>[] }).users;
    expect(users.map((u) => [u["id"], u["has_api_key"], u["has_password"]])).toEqual([
      [1, true, true],
      [(created.body as { user_id: number }).user_id, true, false],
    ]);
  });
});
