/**
 * The console's door, over real HTTPS without a browser (so it runs where Chromium is missing):
 * who gets in, what the cookie is, what a forged form gets, and that pages are locked down.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

async function send(
  method: "GET" | "POST",
  path: string,
  options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const answer = await request(`${emulator.endpoint}/_emulator/console${path}`, {
    method,
    dispatcher: emulator.dispatcher,
    headers: {
      ...(options.form === undefined
        ? {}
        : { "content-type": "application/x-www-form-urlencoded" }),
      ...options.headers,
    },
    body: options.form === undefined ? null : new URLSearchParams(options.form).toString(),
  });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const answer = await send("POST", "/sign-in", { form: { key: emulator.apiKey } });
  const cookie = String(answer.headers["set-cookie"]).split(";")[0] ?? "";
  const page = await send("GET", "/settings", { headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  return { cookie, csrf };
}

describe("signing in to the console", () => {
  it("sends a visitor without a session to the sign-in form", async () => {
    for (const path of ["/", "/requests", "/settings", "/accounts/1"]) {
      const answer = await send("GET", path);
      expect(answer.status).toBe(303);
      expect(answer.headers["location"]).toBe("/_emulator/console/sign-in");
    }
  });

  it("refuses another account's key and never echoes what was typed", async () => {
    const other = await emulator.admin.createAccount({});
    const answer = await send("POST", "/sign-in", { form: { key: other.api_key } });
    expect(answer.status).toBe(401);
    expect(answer.text).toContain("That is not the bootstrap administrator&#39;s key.");
    expect(answer.text).not.toContain(other.api_key);
    expect(answer.headers["set-cookie"]).toBeUndefined();
  });

  it("sets an HttpOnly, Secure, SameSite=Strict session cookie that is not the key", async () => {
    const answer = await send("POST", "/sign-in", { form: { key: emulator.apiKey } });
    expect(answer.status).toBe(303);
    const cookie = String(answer.headers["set-cookie"]);
    expect(cookie).toMatch(
      /^cloudinfra_console=[\w-]{43}; Path=\/_emulator\/console; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(emulator.apiKey);
  });
});

describe("console forms and pages", () => {
  it("refuses a form without the session's token, from another origin, or without a session", async () => {
    await emulator.admin.setFaults({ rules: [{ path: "/v1/tags", status_503: 1 }] });
    const { cookie, csrf } = await signIn();
    expect(csrf).not.toBe("");
    const forged = await send("POST", "/faults/clear", {
      form: { csrf: "forged" },
      headers: { cookie },
    });
    expect(forged.status).toBe(403);
    const elsewhere = await send("POST", "/faults/clear", {
      form: { csrf },
      headers: { cookie, origin: "https://attacker.example" },
    });
    expect(elsewhere.status).toBe(403);
    const anonymous = await send("POST", "/faults/clear", { form: { csrf } });
    expect(anonymous.status).toBe(403);
    expect(emulator.admin.faults().rules).toHaveLength(1);

    const genuine = await send("POST", "/faults/clear", { form: { csrf }, headers: { cookie } });
    expect(genuine.status).toBe(303);
    expect(emulator.admin.faults().rules).toEqual([]);
  });

  it("answers pages that run only the console's own script, are never cached, and hold no key", async () => {
    const { cookie } = await signIn();
    const created = await emulator.call("POST", "/v1/account/users", {
      json: { name: "ci", type: "api", role_id: 1 },
    });
    const userKey = (created.body as { api_key: string }).api_key;
    for (const path of ["/", "/requests", "/settings", "/accounts/1"]) {
      const answer = await send("GET", path, { headers: { cookie } });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-security-policy"]).toContain("script-src 'self'");
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.text).not.toContain(emulator.apiKey);
      expect(answer.text).not.toContain(userKey);
    }
  });

  it("signing out ends the session", async () => {
    const { cookie, csrf } = await signIn();
    const out = await send("POST", "/sign-out", { form: { csrf }, headers: { cookie } });
    expect(out.status).toBe(303);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    const after = await send("GET", "/", { headers: { cookie } });
    expect(after.status).toBe(303);
    expect(after.headers["location"]).toBe("/_emulator/console/sign-in");
  });
});
