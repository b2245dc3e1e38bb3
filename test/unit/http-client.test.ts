import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiError,
  CloudInfraError,
  ConflictError,
  ForbiddenError,
  InsecureEndpointError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../../src/api/errors";
import { HttpClient, type HttpClientOptions, type HttpRequest } from "../../src/api/http";

const ORIGIN = "https://api.test";
const KEY = "ck_test_client_0123456789abcdef";
const pkg = require("../../package.json") as { version: string };

const clients: HttpClient[] = [];
function makeClient(options: Partial<HttpClientOptions> = {}): HttpClient {
  const client = new HttpClient({
    endpoint: ORIGIN,
    apiKey: KEY,
    maxRetries: 0,
    sleep: async () => {},
    logger: { debug() {} },
    ...options,
  });
  clients.push(client);
  return client;
}

function get<T>(path: string, response: z.ZodType<T>): HttpRequest<T> {
  return { method: "GET", path, response, retry: "idempotent" };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the request to fail");
}

beforeAll(() => nock.disableNetConnect());
afterEach(async () => {
  nock.cleanAll();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => nock.enableNetConnect());

describe("endpoint", () => {
  it.each(["http://api.test", "HTTP://127.0.0.1:8443", "127.0.0.1:8443", "ftp://api.test"])(
    "refuses %s before any request is made",
    (endpoint) => {
      const scope = nock(/.*/).get(/.*/).reply(200, {});
      expect(() => makeClient({ endpoint })).toThrow(InsecureEndpointError);
      expect(() => makeClient({ endpoint })).toThrow(/use an https:\/\/ endpoint/);
      expect(scope.isDone()).toBe(false);
    },
  );

  it("keeps a base path and drops a trailing slash", async () => {
    const scope = nock(ORIGIN).get("/api/v1/servers").reply(200, { servers: [] });
    const client = makeClient({ endpoint: `${ORIGIN}/api/` });
    await client.request(get("/v1/servers", z.unknown()));
    expect(scope.isDone()).toBe(true);
  });

  it("refuses credentials inside the endpoint", () => {
    expect(() => makeClient({ endpoint: "https://user:pw@api.test" })).toThrow(
      /must not contain credentials/,
    );
  });

  it("refuses a zero or negative timeout", async () => {
    expect(() => makeClient({ timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number/);
    await expect(
      makeClient().request(get("/v1/servers", z.unknown()), { timeoutMs: -5 }),
    ).rejects.toThrow(/timeoutMs must be a positive number/);
  });

  it("refuses an empty API key", () => {
    expect(() => makeClient({ apiKey: "" })).toThrow(/apiKey is empty/);
  });
});

describe("request", () => {
  it("sends the API key, Accept and a User-Agent naming package and Node versions", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/account")
      .matchHeader("authorization", `ApiKey ${KEY}`)
      .matchHeader("accept", "application/json")
      .matchHeader(
        "user-agent",
        `pulumi-cloudinfra/${pkg.version} node/${process.version} ci-run/7`,
      )
      .reply(200, {});
    await makeClient({ userAgent: "ci-run/7" }).request(get("/v1/account", z.unknown()));
    expect(scope.isDone()).toBe(true);
  });

  it.each(["@evil.example/v1/servers", "v1/servers", "/v1/servers?x=1", "/admin"])(
    "refuses the path %s before sending anything",
    async (path) => {
      const scope = nock(/.*/).get(/.*/).reply(200, {});
      await expect(makeClient().request(get(path, z.unknown()))).rejects.toBeInstanceOf(
        RequestValidationError,
      );
      expect(scope.isDone()).toBe(false);
    },
  );

  it("sends the query, leaving out undefined values", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .query({ page: "2", limit: "50", all: "true", name: "a b&c" })
      .reply(200, {});
    await makeClient().request({
      ...get("/v1/servers", z.unknown()),
      query: { page: 2, limit: 50, all: true, name: "a b&c", status: undefined },
    });
    expect(scope.isDone()).toBe(true);
  });

  it("sends a JSON body with its content type", async () => {
    let received: unknown;
    // nock hangs undici POSTs answered by a reply function, so the body matcher captures it.
    nock(ORIGIN)
      .post("/v1/tags", (body) => {
        received = body;
        return true;
      })
      .matchHeader("content-type", "application/json")
      .reply(201, { id: 1 });
    const data = await makeClient().request({
      method: "POST",
      path: "/v1/tags",
      body: { name: "prod", color: "#FF0000" },
      response: z.object({ id: z.number() }),
      retry: "non-idempotent",
    });
    expect(received).toEqual({ name: "prod", color: "#FF0000" });
    expect(data).toEqual({ id: 1 });
  });

  it("sends multipart fields and files", async () => {
    let contentType = "";
    let received = "";
    nock(ORIGIN)
      .post("/v1/tickets", (body) => {
        received = String(body);
        return true;
      })
      .matchHeader("content-type", (value) => {
        contentType = value ?? "";
        return true;
      })
      .reply(201, { id: 9 });
    await makeClient().request({
      method: "POST",
      path: "/v1/tickets",
      multipart: {
        fields: { subject: "Disk full", content: "Please help" },
        files: [
          {
            field: "attachments",
            filename: "df.txt",
            contentType: "text/plain",
            data: new TextEncoder().encode("/dev/sda1 100%"),
          },
          { field: "attachments", filename: "b.bin", data: new Uint8Array([104, 105]) },
        ],
      },
      response: z.unknown(),
      retry: "non-idempotent",
    });
    const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(received).toContain(
      `--${boundary}\r\nContent-Disposition: form-data; name="subject"\r\n\r\nDisk full\r\n`,
    );
    expect(received).toContain('name="content"\r\n\r\nPlease help\r\n');
    expect(received).toContain(
      'name="attachments"; filename="df.txt"\r\nContent-Type: text/plain\r\n\r\n/dev/sda1 100%\r\n',
    );
    expect(received).toContain(
      'filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\nhi\r\n',
    );
    expect(received.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });
});

describe("successful answers", () => {
  it("are parsed with the schema and returned with status, headers and request id", async () => {
    nock(ORIGIN)
      .get("/v1/servers/1")
      .reply(200, { id: 1, extra: "ignored" }, { "x-request-id": "req-1", "X-Custom": "yes" });
    const res = await makeClient().requestWithResponse(
      get("/v1/servers/1", z.object({ id: z.number() })),
    );
    expect(res).toMatchObject({ data: { id: 1 }, status: 200, requestId: "req-1" });
    expect(res.headers["x-custom"]).toBe("yes");
  });

  it("may be empty when the schema accepts undefined", async () => {
    nock(ORIGIN).delete("/v1/tags/1").reply(204);
    const data = await makeClient().request({
      method: "DELETE",
      path: "/v1/tags/1",
      response: z.undefined(),
      retry: "idempotent",
    });
    expect(data).toBeUndefined();
  });

  it("that miss the schema fail with the JSON path of each mismatch", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(200, { servers: [{ id: 1 }, { id: "two", name: 3 }] }, { "x-request-id": "req-v" });
    const schema = z.object({
      servers: z.array(z.object({ id: z.number(), name: z.string().optional() })),
    });
    const err = await failure(makeClient().request(get("/v1/servers", schema)));
    expect(err).toBeInstanceOf(ResponseValidationError);
    const rve = err as ResponseValidationError;
    expect(rve.issues.map((i) => i.path)).toEqual(["$.servers[1].id", "$.servers[1].name"]);
    expect(rve.message).toMatch(
      /^GET \/v1\/servers returned 200 with an unexpected body, request id req-v: \$\.servers\[1\]\.id: .*expected number/,
    );
    expect(rve).toMatchObject({
      status: 200,
      requestId: "req-v",
      method: "GET",
      path: "/v1/servers",
    });
  });

  it("that miss the schema after a create say the request was applied", async () => {
    nock(ORIGIN)
      .post("/v1/servers")
      .reply(201, [{ id: "not-a-number" }]);
    const err = await failure(
      makeClient().request({
        method: "POST",
        path: "/v1/servers",
        body: {},
        response: z.array(z.object({ id: z.number() })),
        retry: "non-idempotent",
      }),
    );
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as Error).message).toMatch(
      /\$\[0\]\.id: .*; the service did apply the request, do not repeat it$/,
    );
  });

  it("that are empty when a body is required fail clearly", async () => {
    nock(ORIGIN).get("/v1/account").reply(200, "");
    const err = await failure(
      makeClient().request(get("/v1/account", z.object({ id: z.number() }))),
    );
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as Error).message).toMatch(/\$: .*expected object/);
  });

  it("that are not JSON fail as a response validation error", async () => {
    nock(ORIGIN)
      .get("/v1/account")
      .reply(200, "<html>login</html>", { "content-type": "text/html" });
    const err = await failure(makeClient().request(get("/v1/account", z.unknown())));
    expect(err).toBeInstanceOf(ResponseValidationError);
    expect((err as Error).message).toContain("body is not JSON (content-type text/html)");
  });
});

describe("error answers", () => {
  it.each([
    [400, "invalid_request", ValidationError],
    [422, "invalid_request", ValidationError],
    [401, "unauthorized", UnauthorizedError],
    [403, "forbidden", ForbiddenError],
    [404, "not_found", NotFoundError],
    [409, "conflict", ConflictError],
    [413, "payload_too_large", PayloadTooLargeError],
    [415, "unsupported_media_type", UnsupportedMediaTypeError],
    [429, "rate_limited", RateLimitedError],
    [500, "internal", ServerError],
    [503, "unavailable", ServerError],
    [418, "teapot", ApiError],
  ])("%i becomes %s with code, request id and path", async (status, code, cls) => {
    nock(ORIGIN)
      .get("/v1/servers/5")
      .query(true)
      .reply(
        status,
        { success: false, message: "nope", code },
        { "x-request-id": `rid-${status}` },
      );
    const err = await failure(
      makeClient().request({ ...get("/v1/servers/5", z.unknown()), query: { page: 1 } }),
    );
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(CloudInfraError);
    expect(err).toMatchObject({
      status,
      code,
      requestId: `rid-${status}`,
      method: "GET",
      path: "/v1/servers/5",
      name: cls.name,
    });
    expect((err as Error).message).toMatch(
      new RegExp(`^GET /v1/servers/5 failed: ${status} ${code}: nope \\(request id rid-${status}`),
    );
  });

  it("carry the field errors and name them in the message", async () => {
    const body = {
      success: false,
      message: 'a server named "web" already exists',
      code: "conflict",
      errors: [{ field: "user_defined_name", message: "must be unique" }],
    };
    nock(ORIGIN).post("/v1/servers").reply(409, body, { "x-request-id": "7f3c" });
    const err = await failure(
      makeClient().request({
        method: "POST",
        path: "/v1/servers",
        body: {},
        response: z.unknown(),
        retry: "non-idempotent",
      }),
    );
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).fieldErrors).toEqual([
      { field: "user_defined_name", message: "must be unique" },
    ]);
    expect((err as ConflictError).body).toEqual(body);
    expect((err as Error).message).toBe(
      'POST /v1/servers failed: 409 conflict: a server named "web" already exists (request id 7f3c; field user_defined_name: must be unique)',
    );
  });

  it("tell the operator what to check on 401 and 403", async () => {
    nock(ORIGIN)
      .get("/v1/account")
      .reply(401, { success: false, message: "unknown key", code: "unauthorized" })
      .get("/v1/account")
      .reply(403, { success: false, message: "missing account:read", code: "forbidden" });
    const client = makeClient();
    await expect(client.request(get("/v1/account", z.unknown()))).rejects.toThrow(
      /check the API key \(cloudinfra:apiKey or CLOUDINFRA_API_KEY\)/,
    );
    await expect(client.request(get("/v1/account", z.unknown()))).rejects.toThrow(
      /missing account:read.*lacks the permission/,
    );
  });

  it("without JSON are still mapped, with a derived code and the text", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {
        "content-type": "text/html",
      });
    const err = await failure(makeClient().request(get("/v1/servers", z.unknown())));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 502, code: "http_502", fieldErrors: [] });
    expect((err as Error).message).toBe("GET /v1/servers failed: 502 http_502: 502 Bad Gateway");
  });

  it("with an empty body are mapped by status alone", async () => {
    nock(ORIGIN).get("/v1/servers/9").reply(404);
    const err = await failure(makeClient().request(get("/v1/servers/9", z.unknown())));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe("GET /v1/servers/9 failed: 404 http_404");
  });

  it("keep a long service message on one line and bounded", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(500, {
        success: false,
        code: "internal",
        message: `line one\nline two ${"x".repeat(1000)}`,
      });
    const err = await failure(makeClient().request(get("/v1/servers", z.unknown())));
    const message = (err as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain("line one line two");
    expect(message.length).toBeLessThan(400);
  });
});
