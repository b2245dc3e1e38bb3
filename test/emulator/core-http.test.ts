import { request as httpRequest } from "node:http";
import { connect } from "node:tls";
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator({ extraRoutes: coreTestRoutes });
});
afterAll(async () => {
  await emulator?.close();
});

async function userWithRole(role: string): Promise<string> {
  const created = await emulator.call("POST", "/v1/_test/users", { json: { role } });
  expect(created.status).toBe(200);
  return (created.body as { api_key: string }).api_key;
}

describe("authentication", () => {
  it("answers 401 unauthorized without an Authorization header", async () => {
    const answer = await emulator.call("GET", "/v1/_test/whoami", { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ success: false, code: "unauthorized" });
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
  });

  it("answers 401 for an unknown key and for another scheme", async () => {
    const wrong = await emulator.call("GET", "/v1/_test/whoami", { key: "cik_not-a-real-key" });
    expect(wrong.status).toBe(401);
    expect((wrong.body as { message: string }).message).toBe("Unknown API key");
    const bearer = await emulator.call("GET", "/v1/_test/whoami", {
      key: null,
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    expect(bearer.status).toBe(401);
    expect((bearer.body as { message: string }).message).toMatch(/ApiKey <key>/);
  });

  it("accepts the bootstrap key and identifies its user", async () => {
    const answer = await emulator.call("GET", "/v1/_test/whoami");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ account_id: 1, user_id: 1 });
  });

  it("never lets a DID user authenticate: it has no key to send", async () => {
    const created = await emulator.call("POST", "/v1/_test/users", {
      json: { role: "Administrator", type: "did" },
    });
    expect(created.body).toMatchObject({ api_key: "" });
    const account = await emulator.call("GET", "/_emulator/accounts/1");
    const users = (account.body as { users: { type: string; has_api_key: boolean }[] }).users;
    const dids = users.filter((u) => u.type === "did");
    expect(dids.map((u) => u.has_api_key)).toEqual([false]);
  });

  it("keeps only a hash of each key", async () => {
    const key = await userWithRole("Read only");
    const account = await emulator.call("GET", "/_emulator/accounts/1");
    expect(JSON.stringify(account.body)).not.toContain(key);
    expect(JSON.stringify(account.body)).not.toContain(emulator.apiKey);
  });
});

describe("permissions", () => {
  it("answers 403 forbidden when the role lacks the route's permission", async () => {
    const readOnly = await userWithRole("Read only");
    const write = await emulator.call("POST", "/v1/_test/notes", {
      key: readOnly,
      json: { text: "x" },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ success: false, code: "forbidden" });
    expect((write.body as { message: string }).message).toContain("tags:write");
    const read = await emulator.call("GET", "/v1/_test/notes", { key: readOnly });
    expect(read.status).toBe(200);
  });

  it("lets any valid key call a route that needs no permission", async () => {
    const readOnly = await userWithRole("Read only");
    expect((await emulator.call("GET", "/v1/_test/whoami", { key: readOnly })).status).toBe(200);
  });

  it("checks the permission before looking at the body", async () => {
    const readOnly = await userWithRole("Read only");
    const answer = await emulator.call("POST", "/v1/_test/notes", {
      key: readOnly,
      body: "not json",
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(403);
  });
});

describe("accounts", () => {
  it("keeps each account's resources invisible to the others (404, not 403)", async () => {
    const mine = await emulator.call("POST", "/v1/_test/notes", { json: { text: "secret" } });
    const { id } = mine.body as { id: number };
    const other = await emulator.admin.createAccount({ name: "Other" });
    const theirs = await emulator.call("GET", `/v1/_test/notes/${id}`, { key: other.api_key });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: "not_found" });
    const list = await emulator.call("GET", "/v1/_test/notes", { key: other.api_key });
    expect(list.body).toEqual([]);
    expect((await emulator.call("GET", `/v1/_test/notes/${id}`)).status).toBe(200);
  });
});

describe("request bodies", () => {
  it("answers 415 when a JSON route gets another content type", async () => {
    const answer = await emulator.call("POST", "/v1/_test/notes", {
      body: "text=hello",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ success: false, code: "unsupported_media_type" });
  });

  it("answers 415 when a multipart route gets JSON", async () => {
    const answer = await emulator.call("POST", "/v1/_test/upload", { json: { a: 1 } });
    expect(answer.status).toBe(415);
  });

  it("answers 400 invalid_request for malformed JSON", async () => {
    const answer = await emulator.call("POST", "/v1/_test/notes", {
      body: '{"text": ',
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: "invalid_request" });
    expect((answer.body as { message: string }).message).toMatch(/not valid JSON/);
  });

  it("answers 400 with one error per field at fault", async () => {
    const answer = await emulator.call("POST", "/v1/_test/notes", {
      json: { priority: 9, colour: "red" },
    });
    expect(answer.status).toBe(400);
    const errors = (answer.body as { errors: { field: string; message: string }[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: "text", message: "is required" },
        expect.objectContaining({ field: "priority" }),
        { field: "colour", message: "unknown field" },
      ]),
    );
  });

  it("validates an empty body as {} so missing fields are named", async () => {
    const answer = await emulator.call("POST", "/v1/_test/notes");
    expect(answer.status).toBe(400);
    expect((answer.body as { errors: { field: string }[] }).errors[0]?.field).toBe("text");
  });

  it("answers 413 for a JSON body over 1 MB", async () => {
    const answer = await emulator.call("POST", "/v1/_test/notes", {
      json: { text: "x".repeat(1_100_000) },
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: "payload_too_large" });
  });

  it("answers 413 (not a connection reset) for a multipart body over 3 MB", async () => {
    const form = new FormData();
    form.append("attachments", new Blob([new Uint8Array(3_500_000)]), "core.dump");
    const answer = await emulator.call("POST", "/v1/_test/upload", { body: form });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ success: false, code: "payload_too_large" });
  });

  it("parses multipart bodies into FormData", async () => {
    const form = new FormData();
    form.append("subject", "Disk full");
    form.append("attachments", new Blob([new Uint8Array(1000)]), "log.txt");
    const answer = await emulator.call("POST", "/v1/_test/upload", { body: form });
    expect(answer.status).toBe(200);
    expect((answer.body as { fields: unknown[] }).fields).toEqual([
      { name: "subject", size: 9 },
      { name: "attachments", size: 1000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });

  it("answers 400 for a path id that is not a positive integer", async () => {
    const answer = await emulator.call("GET", "/v1/_test/notes/abc");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: "id" }] });
  });
});

describe("routing and answers", () => {
  it("answers 404 not_found for an unknown route, naming it", async () => {
    const answer = await emulator.call("GET", "/v1/nothing/here");
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      success: false,
      code: "not_found",
      message: "No route for GET /v1/nothing/here",
    });
  });

  it("answers 404 for a known path with the wrong method, naming the methods it accepts", async () => {
    const answer = await emulator.call("DELETE", "/v1/_test/notes");
    expect(answer.status).toBe(404);
    expect((answer.body as { message: string }).message).toContain("GET");
  });

  it("gives every answer its own x-request-id", async () => {
    const answers = await Promise.all([
      emulator.call("GET", "/v1/_test/whoami"),
      emulator.call("GET", "/v1/_test/whoami", { key: null }),
      emulator.call("GET", "/v1/missing"),
    ]);
    const ids = answers.map((a) => a.headers["x-request-id"]);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{16}$/);
  });

  it("serves a certificate valid for 127.0.0.1 and localhost, signed by the CA", async () => {
    for (const servername of ["localhost", undefined]) {
      const authorized = await new Promise<boolean>((resolve, reject) => {
        const socket = connect(
          {
            host: "127.0.0.1",
            port: emulator.port,
            ca: emulator.caCert,
            ...(servername ? { servername } : {}),
          },
          () => {
            resolve(socket.authorized);
            socket.end();
          },
        );
        socket.on("error", reject);
      });
      expect(authorized).toBe(true);
    }
  });

  it("refuses a client that does not trust the CA", async () => {
    const error = await new Promise<Error>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port: emulator.port }, () =>
        resolve(new Error("connected")),
      );
      socket.on("error", resolve);
    });
    expect(error.message).toMatch(/self[- ]signed|unable to verify|local issuer/i);
  });
});

describe("plain HTTP", () => {
  it("answers 403 https_required in plain HTTP and closes the connection", async () => {
    const answer = await new Promise<{
      status: number;
      body: string;
      headers: Record<string, unknown>;
    }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: emulator.port,
          path: "/v1/servers",
          headers: { authorization: `ApiKey ${emulator.apiKey}` },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, code: "https_required" });
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
    expect(answer.headers["connection"]).toBe("close");
    // The HTTPS side keeps working after a plaintext visitor.
    expect((await emulator.call("GET", "/v1/_test/whoami")).status).toBe(200);
  });
});
