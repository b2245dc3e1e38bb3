import { inspect } from "node:util";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ConnectionError, ServerError, ValidationError } from "../../src/api/errors";
import { HttpClient, type HttpClientOptions, type HttpRequest } from "../../src/api/http";
import { loggerFromEnv } from "../../src/api/log";

const ORIGIN = "https://api.test";
const KEY = "ck_live_SECRET_9f8e7d6c5b4a";

interface Line {
  message: string;
  fields: Record<string, unknown> | undefined;
}

const clients: HttpClient[] = [];
function makeClient(options: Partial<HttpClientOptions> = {}): {
  client: HttpClient;
  lines: Line[];
  text: () => string;
} {
  const lines: Line[] = [];
  const client = new HttpClient({
    endpoint: ORIGIN,
    apiKey: KEY,
    random: () => 0.5,
    sleep: async () => {},
    logger: { debug: (message, fields) => lines.push({ message, fields }) },
    ...options,
  });
  clients.push(client);
  return { client, lines, text: () => JSON.stringify(lines) };
}

function everythingAbout(err: unknown): string {
  const e = err as Error;
  return [e.message, e.stack ?? "", inspect(err, { depth: 10 }), JSON.stringify(err)].join("\n");
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the request to fail");
}

const listServers: HttpRequest<unknown> = {
  method: "GET",
  path: "/v1/servers",
  response: z.unknown(),
  retry: "idempotent",
};

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  nock.cleanAll();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => nock.enableNetConnect());

describe("debug log", () => {
  it("has one line per attempt with method, path, status, duration, attempt and request id", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(503, "", { "x-request-id": "r-1" })
      .get("/v1/servers")
      .reply(200, { servers: [] }, { "x-request-id": "r-2" });
    const { client, lines } = makeClient({ retryBaseDelayMs: 100 });
    await client.request(listServers);
    expect(lines.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^GET \/v1\/servers -> 503 in \d+ ms \(attempt 1\/5, retry in 50 ms\) request id r-1$/,
      ),
      expect.stringMatching(/^GET \/v1\/servers -> 200 in \d+ ms \(attempt 2\/5\) request id r-2$/),
    ]);
    expect(lines[1]?.fields).toMatchObject({
      method: "GET",
      path: "/v1/servers",
      status: 200,
      attempt: 2,
      maxAttempts: 5,
      requestId: "r-2",
      durationMs: expect.any(Number),
      response: { fields: ["servers"] },
    });
  });

  it("logs connection failures with the error", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .replyWithError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
    const { client, lines } = makeClient({ maxRetries: 0 });
    await expect(client.request(listServers)).rejects.toBeInstanceOf(ConnectionError);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toMatch(/^GET \/v1\/servers -> error in \d+ ms \(attempt 1\/1\)$/);
    expect(lines[0]?.fields?.["error"]).toContain("socket hang up (ECONNRESET)");
  });

  it("shows bodies by their shape only, never a value the user may have made secret", async () => {
    const secret = "team=payments;token=s3cr3t-tag-data";
    nock(ORIGIN)
      .post("/v1/tags")
      .reply(201, { id: 7, name: "web", color: "#000000", data: secret, servers: [] })
      .post("/v1/tags")
      .reply(409, {
        success: false,
        code: "conflict",
        message: `a tag with data ${secret} exists`,
        errors: [{ field: "data", message: `duplicate ${secret}` }],
      })
      .get("/v1/tags")
      .reply(200, [{ id: 7, data: secret }]);
    const { client, lines, text } = makeClient();
    const create = {
      method: "POST" as const,
      path: "/v1/tags",
      body: { name: "web", color: "#000000", data: secret },
      response: z.object({ id: z.number(), data: z.string() }),
      retry: "non-idempotent" as const,
    };
    expect((await client.request(create)).data).toBe(secret);
    await expect(client.request(create)).rejects.toThrow(/409 conflict/);
    await client.request({ ...listServers, path: "/v1/tags" });
    expect(text()).not.toContain("s3cr3t");
    expect(lines.map((l) => [l.fields?.["request"], l.fields?.["response"]])).toEqual([
      [
        { fields: ["color", "data", "name"] },
        { fields: ["color", "data", "id", "name", "servers"] },
      ],
      [{ fields: ["color", "data", "name"] }, { code: "conflict", fields: ["data"] }],
      [undefined, { items: 1 }],
    ]);
  });

  it("keeps secrets in answers for the caller while the log holds only field names", async () => {
    nock(ORIGIN)
      .post("/v1/iam/users")
      .reply(201, { user_id: 5, api_key: "ck_new_user_key_abcdef" })
      .post("/v1/keys")
      .reply(201, { id: 3, private_key: "-----BEGIN OPENSSH PRIVATE KEY-----xyz" });
    const { client, text } = makeClient();
    const created = await client.request({
      method: "POST",
      path: "/v1/iam/users",
      body: { name: "ci", type: "api", role_id: 1, password: "hunter2hunter2" },
      response: z.object({ user_id: z.number(), api_key: z.string() }),
      retry: "non-idempotent",
    });
    const key = await client.request({
      method: "POST",
      path: "/v1/keys",
      body: { name: "deploy", type: "generate" },
      response: z.object({ id: z.number(), private_key: z.string() }),
      retry: "non-idempotent",
    });
    expect(created.api_key).toBe("ck_new_user_key_abcdef");
    expect(key.private_key).toContain("PRIVATE KEY");
    const log = text();
    expect(log).toContain('"api_key"');
    for (const value of ["hunter2hunter2", "ck_new_user_key_abcdef", "BEGIN OPENSSH", '"ci"']) {
      expect(log).not.toContain(value);
    }
  });

  it("summarises multipart bodies by field names, file count and size", async () => {
    nock(ORIGIN).post("/v1/tickets").reply(201, { id: 1 });
    const { client, lines } = makeClient();
    await client.request({
      method: "POST",
      path: "/v1/tickets",
      multipart: {
        fields: { subject: "help", content: "my password is hunter2" },
        files: [{ field: "attachments", filename: "x.log", data: new Uint8Array(1234) }],
      },
      response: z.unknown(),
      retry: "non-idempotent",
    });
    expect(lines[0]?.fields?.["request"]).toEqual({
      fields: ["content", "subject"],
      files: 1,
      fileBytes: 1234,
    });
  });

  it("never contains the API key, even when the service echoes it", async () => {
    nock(ORIGIN)
      .get("/v1/account")
      .reply(200, { note: `you are ${KEY}`, [KEY]: true })
      .get("/v1/account")
      .reply(400, {
        success: false,
        code: "invalid_request",
        message: `bad key ${KEY}`,
        errors: [{ field: "x", message: `was ${KEY}` }],
      });
    const { client, text } = makeClient();
    await client.request({ ...listServers, path: "/v1/account" });
    await expect(client.request({ ...listServers, path: "/v1/account" })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(text()).not.toContain(KEY);
    expect(text()).toContain("[REDACTED]");
  });

  it("does not turn a success into a failure when the logger throws", async () => {
    nock(ORIGIN).get("/v1/servers").reply(200, { ok: true });
    const { client } = makeClient({
      logger: {
        debug() {
          throw new Error("disk full");
        },
      },
    });
    await expect(client.request(listServers)).resolves.toEqual({ ok: true });
  });

  it("is written to stderr when CLOUDINFRA_LOG=debug, and nowhere otherwise", async () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    nock(ORIGIN).get("/v1/servers").times(2).reply(200, { ok: true }, { "x-request-id": "rid" });

    vi.stubEnv("CLOUDINFRA_LOG", "");
    const quiet = new HttpClient({ endpoint: ORIGIN, apiKey: KEY });
    clients.push(quiet);
    await quiet.request(listServers);
    expect(writes).toEqual([]);

    vi.stubEnv("CLOUDINFRA_LOG", "debug");
    const loud = new HttpClient({ endpoint: ORIGIN, apiKey: KEY });
    clients.push(loud);
    await loud.request(listServers);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(
      /^cloudinfra \S+ GET \/v1\/servers -> 200 in \d+ ms .*request id rid/,
    );
    expect(writes[0]).not.toContain(KEY);
  });

  it("loggerFromEnv reads the given environment", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    loggerFromEnv({ CLOUDINFRA_LOG: "info" }).debug("hidden");
    expect(write).not.toHaveBeenCalled();
    loggerFromEnv({ CLOUDINFRA_LOG: "DEBUG" }).debug("shown", { a: 1 });
    expect(write).toHaveBeenCalledTimes(1);
    expect(String(write.mock.calls[0]?.[0])).toMatch(/shown \{"a":1\}\n$/);
  });
});

describe("errors", () => {
  it("never carry the API key in message, stack, inspect output or body", async () => {
    nock(ORIGIN)
      .post("/v1/servers")
      .reply(500, {
        success: false,
        code: "internal",
        message: `Authorization ApiKey ${KEY} rejected`,
        authorization: `ApiKey ${KEY}`,
      });
    const { client } = makeClient();
    const err = await failure(
      client.request({
        method: "POST",
        path: "/v1/servers",
        body: { password: "pw-123456" },
        response: z.unknown(),
        retry: "non-idempotent",
      }),
    );
    expect(err).toBeInstanceOf(ServerError);
    const all = everythingAbout(err);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain("pw-123456");
    expect((err as ServerError).body).toMatchObject({ authorization: "[REDACTED]" });
  });

  it("never carry the API key when a connection error mentions it", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .replyWithError(
        Object.assign(new Error(`proxy refused ApiKey ${KEY}`), { code: "ECONNRESET" }),
      );
    const { client } = makeClient({ maxRetries: 0 });
    const err = await failure(client.request(listServers));
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as Error).message).toContain("proxy refused ApiKey [REDACTED]");
    expect(everythingAbout(err)).not.toContain(KEY);
    expect((err as ConnectionError).causeCode).toBe("ECONNRESET");
  });

  it("never carry the API key from a response that fails validation", async () => {
    nock(ORIGIN).get("/v1/servers").reply(200, { id: KEY });
    const { client, text } = makeClient();
    const err = await failure(
      client.request({ ...listServers, response: z.object({ id: z.number() }) }),
    );
    expect(everythingAbout(err)).not.toContain(KEY);
    expect(text()).not.toContain(KEY);
  });
});
