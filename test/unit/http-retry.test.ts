import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  AbortedError,
  ApiError,
  CloudInfraError,
  ConnectionError,
  isAmbiguousFailure,
  RateLimitedError,
  ServerError,
  ValidationError,
} from "../../src/api/errors";
import {
  HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  withOperationSignal,
} from "../../src/api/http";

const ORIGIN = "https://api.test";
const KEY = "ck_test_retry_0123456789abcdef";

const clients: HttpClient[] = [];
function makeClient(options: Partial<HttpClientOptions> = {}): {
  client: HttpClient;
  delays: number[];
} {
  const delays: number[] = [];
  // A clock that moves only when the client sleeps: a wait is then exactly what the client
  // decided, not less the milliseconds the test itself took.
  let clock = Date.parse("2025-01-01T12:00:00Z");
  const client = new HttpClient({
    endpoint: ORIGIN,
    apiKey: KEY,
    random: () => 0.5,
    now: () => clock,
    sleep: async (ms) => {
      delays.push(ms);
      clock += ms;
    },
    logger: { debug() {} },
    ...options,
  });
  clients.push(client);
  return { client, delays };
}

const listServers: HttpRequest<unknown> = {
  method: "GET",
  path: "/v1/servers",
  response: z.unknown(),
  retry: "idempotent",
};
const createServer: HttpRequest<unknown> = {
  method: "POST",
  path: "/v1/servers",
  body: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web" },
  response: z.unknown(),
  retry: "non-idempotent",
};

function socketError(code: string, message = code): Error {
  // nock only hands Error instances to undici; a plain object leaves the request hanging.
  return Object.assign(new Error(message), { code });
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

describe("idempotent requests", () => {
  it("are retried after a connection reset", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .replyWithError(socketError("ECONNRESET", "socket hang up"))
      .get("/v1/servers")
      .reply(200, { servers: [] });
    const { client, delays } = makeClient();
    await expect(client.request(listServers)).resolves.toEqual({ servers: [] });
    expect(scope.isDone()).toBe(true);
    expect(delays).toHaveLength(1);
  });

  it.each([408, 429, 500, 502, 503, 504])("are retried after %i", async (status) => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .reply(status, { success: false, message: "try later", code: "unavailable" })
      .get("/v1/servers")
      .reply(200, { servers: [] });
    const { client } = makeClient();
    await expect(client.request(listServers)).resolves.toEqual({ servers: [] });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ["DELETE", "/v1/tags/7"],
    ["POST", "/v1/tags/7"],
  ] as const)(
    "are retried after 500 whatever the method: %s %s (a delete, an absolute update)",
    async (method, path) => {
      const scope = nock(ORIGIN)
        .intercept(path, method)
        .reply(500, { success: false, message: "boom", code: "internal" })
        .intercept(path, method)
        .reply(200, { success: true, message: "ok" });
      const { client } = makeClient();
      const request = { method, path, response: z.unknown(), retry: "idempotent" as const };
      await expect(client.request(request)).resolves.toEqual({ success: true, message: "ok" });
      expect(scope.isDone()).toBe(true);
    },
  );

  it("give up after 500 once the retries are spent, with the last answer", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .times(3)
      .reply(500, { success: false, message: "boom", code: "internal" });
    const { client, delays } = makeClient({ maxRetries: 2 });
    const err = await failure(client.request(listServers));
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ApiError).message).toContain("gave up after 3 attempts");
    expect(delays).toHaveLength(2);
  });

  it.each([
    [400, ValidationError],
    [404, ApiError],
    [409, ApiError],
  ])("are not retried after %i", async (status, cls) => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .reply(status, { success: false, message: "no", code: "x" })
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient();
    const err = await failure(client.request(listServers));
    expect(err).toBeInstanceOf(cls);
    expect((err as ApiError).status).toBe(status);
    expect((err as ApiError).mayHaveBeenApplied).toBe(false);
    expect(delays).toEqual([]);
    expect(scope.pendingMocks()).toHaveLength(1);
  });
});

describe("non-idempotent requests", () => {
  it("are not retried after a reset once the request was sent, and say it may have been applied", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .replyWithError(socketError("ECONNRESET", "socket hang up"))
      .post("/v1/servers")
      .reply(201, []);
    const { client, delays } = makeClient();
    const err = await failure(client.request(createServer));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({
      causeCode: "ECONNRESET",
      requestSent: true,
      mayHaveBeenApplied: true,
    });
    expect(isAmbiguousFailure(err)).toBe(true);
    expect((err as Error).message).toContain("may have been applied");
    expect(delays).toEqual([]);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it.each([500, 502, 504])(
    "are not retried after %i, which may have been applied",
    async (status) => {
      const scope = nock(ORIGIN)
        .post("/v1/servers")
        .reply(status, { success: false, message: "upstream failed", code: "internal" })
        .post("/v1/servers")
        .reply(201, []);
      const { client } = makeClient();
      const err = await failure(client.request(createServer));
      expect(err).toBeInstanceOf(ServerError);
      expect((err as ServerError).mayHaveBeenApplied).toBe(true);
      expect(isAmbiguousFailure(err)).toBe(true);
      expect(scope.pendingMocks()).toHaveLength(1);
    },
  );

  it("are not retried after 503 without Retry-After", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .reply(503, { success: false, message: "down", code: "unavailable" })
      .post("/v1/servers")
      .reply(201, []);
    const { client } = makeClient();
    const err = await failure(client.request(createServer));
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).mayHaveBeenApplied).toBe(true);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("are retried when the connection was refused (nothing was sent)", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .replyWithError(socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:443"))
      .post("/v1/servers")
      .reply(201, [{ id: 1 }]);
    const { client } = makeClient();
    await expect(client.request(createServer)).resolves.toEqual([{ id: 1 }]);
    expect(scope.isDone()).toBe(true);
  });

  it("report a refused connection as not applied when retries run out", async () => {
    nock(ORIGIN)
      .post("/v1/servers")
      .times(2)
      .replyWithError(socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:443"));
    const { client } = makeClient({ maxRetries: 1 });
    const err = await failure(client.request(createServer));
    expect(err).toMatchObject({ requestSent: false, mayHaveBeenApplied: false });
    expect(isAmbiguousFailure(err)).toBe(false);
    expect((err as Error).message).toContain("is the service (or emulator) running?");
  });

  it("are retried after 429", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .reply(429, { success: false, message: "slow down", code: "rate_limited" })
      .post("/v1/servers")
      .reply(201, []);
    const { client } = makeClient();
    await expect(client.request(createServer)).resolves.toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it("are retried after 503 with Retry-After, waiting as told", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .reply(
        503,
        { success: false, message: "maintenance", code: "unavailable" },
        {
          "Retry-After": "2",
        },
      )
      .post("/v1/servers")
      .reply(201, []);
    const { client, delays } = makeClient();
    await expect(client.request(createServer)).resolves.toEqual([]);
    expect(delays).toEqual([2_000]);
    expect(scope.isDone()).toBe(true);
  });

  it("are not retried after 4xx answers", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .reply(409, { success: false, message: "exists", code: "conflict" })
      .post("/v1/servers")
      .reply(201, []);
    const { client } = makeClient();
    const err = await failure(client.request(createServer));
    expect(err).toMatchObject({ status: 409, mayHaveBeenApplied: false });
    expect(isAmbiguousFailure(err)).toBe(false);
    expect(scope.pendingMocks()).toHaveLength(1);
  });
});

describe("delays", () => {
  it("honour Retry-After in seconds on 429", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(429, { success: false, message: "slow", code: "rate_limited" }, { "Retry-After": "7" })
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient();
    await client.request(listServers);
    expect(delays).toEqual([7_000]);
  });

  it("honour Retry-After as an HTTP date", async () => {
    const now = Date.parse("2025-01-01T12:00:00Z");
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(
        429,
        { success: false, message: "slow", code: "rate_limited" },
        {
          "Retry-After": "Wed, 01 Jan 2025 12:00:05 GMT",
        },
      )
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient({ now: () => now });
    await client.request(listServers);
    expect(delays).toEqual([5_000]);
  });

  it("treat an HTTP-date Retry-After in the past as no wait", async () => {
    const now = Date.parse("2025-01-01T12:00:00Z");
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(503, "", { "Retry-After": "Wed, 01 Jan 2025 11:00:00 GMT" })
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient({ now: () => now });
    await client.request(listServers);
    expect(delays).toEqual([0]);
  });

  it("fall back to backoff when Retry-After is unparseable", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .reply(429, {}, { "Retry-After": "soon" })
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient({ retryBaseDelayMs: 100 });
    await client.request(listServers);
    expect(delays).toEqual([50]);
  });

  it("do not wait for a Retry-After beyond maxRetryAfterMs: RateLimitedError at once", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .reply(
        429,
        { success: false, message: "quota exhausted", code: "rate_limited" },
        { "Retry-After": "3600", "x-request-id": "req-429" },
      )
      .get("/v1/servers")
      .reply(200, {});
    const { client, delays } = makeClient({ maxRetryAfterMs: 60_000 });
    const err = await failure(client.request(listServers));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({
      retryAfterMs: 3_600_000,
      code: "rate_limited",
      requestId: "req-429",
    });
    expect((err as Error).message).toContain("retry after 3600s");
    expect(delays).toEqual([]);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("grow exponentially with full jitter up to the cap", async () => {
    nock(ORIGIN).get("/v1/servers").times(6).reply(502, "bad gateway");
    nock(ORIGIN).get("/v1/servers").reply(200, {});
    const { client, delays } = makeClient({
      maxRetries: 6,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 1_000,
      random: () => 0.999,
    });
    await client.request(listServers);
    // ceilings 100, 200, 400, 800, then capped at 1000; random() scales each down.
    expect(delays).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it("are drawn anywhere between zero and the ceiling (full jitter)", async () => {
    nock(ORIGIN).get("/v1/servers").times(3).reply(503, "");
    nock(ORIGIN).get("/v1/servers").reply(200, {});
    const draws = [0, 0.25, 0.75];
    const { client, delays } = makeClient({
      retryBaseDelayMs: 1_000,
      random: () => draws.shift() ?? 0,
    });
    await client.request(listServers);
    expect(delays).toEqual([0, 500, 3_000]);
  });

  it("use the default policy (500 ms base) when none is given", async () => {
    nock(ORIGIN).get("/v1/servers").reply(502, "").get("/v1/servers").reply(200, {});
    const { client, delays } = makeClient();
    await client.request(listServers);
    expect(delays).toEqual([250]);
  });
});

describe("limits", () => {
  it("throw the last error once retries are exhausted", async () => {
    nock(ORIGIN)
      .get("/v1/servers")
      .times(4)
      .reply(502, "", { "x-request-id": "first" })
      .get("/v1/servers")
      .reply(
        504,
        { success: false, message: "gateway timeout", code: "timeout" },
        {
          "x-request-id": "last",
        },
      );
    const { client, delays } = makeClient();
    const err = await failure(client.request(listServers));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 504, requestId: "last", mayHaveBeenApplied: false });
    expect((err as Error).message).toContain("gave up after 5 attempts");
    expect(delays).toHaveLength(4);
  });

  it("let a call lower maxRetries", async () => {
    const scope = nock(ORIGIN).get("/v1/servers").reply(503, "").get("/v1/servers").reply(200, {});
    const { client } = makeClient();
    const err = await failure(client.request(listServers, { maxRetries: 0 }));
    expect(err).toMatchObject({ status: 503 });
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("let a call raise maxRetries", async () => {
    nock(ORIGIN).get("/v1/servers").times(3).reply(503, "");
    nock(ORIGIN).get("/v1/servers").reply(200, { ok: true });
    const { client } = makeClient({ maxRetries: 1 });
    await expect(client.request(listServers, { maxRetries: 3 })).resolves.toEqual({ ok: true });
  });

  it("reject a negative per-call maxRetries", async () => {
    const { client } = makeClient();
    await expect(client.request(listServers, { maxRetries: -1 })).rejects.toThrow(
      /maxRetries must be a non-negative integer/,
    );
  });
});

describe("the operation signal (withOperationSignal)", () => {
  /** A client whose sleeps wait for real, until their signal ends them. */
  function sleepingClient(): { client: HttpClient; slept: number[] } {
    const slept: number[] = [];
    const { client } = makeClient({
      sleep: (ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          slept.push(ms);
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    });
    return { client, slept };
  }

  it.each([
    ["a back-off sleep after a 503", 503, {}],
    ["a 429's wait for the rate budget", 429, { "retry-after": "30" }],
  ])("ends %s, which the request passed no signal for", async (_what, status, headers) => {
    nock(ORIGIN).get("/v1/servers").reply(status, { success: false, message: "busy" }, headers);
    const { client, slept } = sleepingClient();
    const operation = new AbortController();
    const pending = failure(
      withOperationSignal(operation.signal, () => client.request(listServers)),
    );
    await vi.waitFor(() => expect(slept).toHaveLength(1));
    operation.abort(new Error("stop"));
    expect(String((await pending) as Error)).toBe(
      "AbortedError: GET /v1/servers aborted by the caller",
    );
  });

  /** A request the service holds for a minute; the operation ends once it has arrived. */
  async function endedInFlight(req: HttpRequest<unknown>): Promise<unknown> {
    const scope = nock(ORIGIN)
      .intercept(req.path, req.method)
      .delay(60_000)
      .reply(200, { ok: true });
    const operation = new AbortController();
    scope.on("request", () => operation.abort(new CloudInfraError("the create ran out of time")));
    // The real sleep: only the operation's end can cut a wait short.
    const { client } = makeClient({ timeoutMs: 120_000 });
    const startedAt = Date.now();
    const err = await failure(withOperationSignal(operation.signal, () => client.request(req)));
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    // One attempt: a stopped operation sends nothing again.
    expect(scope.isDone()).toBe(true);
    return err;
  }

  it("ends a read in flight: it simply fails", async () => {
    const err = await endedInFlight(listServers);
    expect(err).toBeInstanceOf(AbortedError);
    expect(err).toMatchObject({ mayHaveBeenApplied: false });
    expect((err as Error).message).toBe(
      "GET /v1/servers aborted by the caller: the create ran out of time",
    );
  });

  it.each([
    ["POST", createServer],
    ["DELETE", { ...listServers, method: "DELETE", path: "/v1/servers/7" }],
  ] satisfies [string, HttpRequest<unknown>][])(
    "ends a %s in flight as maybe applied, for create recovery to keep it open",
    async (method, req) => {
      const err = await endedInFlight(req);
      expect(err).toBeInstanceOf(AbortedError);
      expect(err).toMatchObject({ mayHaveBeenApplied: true });
      // Nobody looks on the caller's behalf: the operation asked to stop.
      expect(isAmbiguousFailure(err)).toBe(false);
      expect((err as Error).message).toBe(
        `${method} ${req.path} aborted by the caller: the create ran out of time; the request may have been applied`,
      );
    },
  );

  it("leaves alone work run outside the operation (withOperationSignal(undefined)): a shared poll", async () => {
    const scope = nock(ORIGIN).get("/v1/servers").delay(300).reply(200, { servers: [] });
    const operation = new AbortController();
    scope.on("request", () => operation.abort(new CloudInfraError("the create ran out of time")));
    const { client } = makeClient();
    await expect(
      withOperationSignal(operation.signal, () =>
        withOperationSignal(undefined, () => client.request(listServers)),
      ),
    ).resolves.toEqual({ servers: [] });
    expect(operation.signal.aborted).toBe(true);
  });

  it("lets a first attempt go even when the operation has ended: only waits are cut short", async () => {
    nock(ORIGIN).get("/v1/servers").reply(200, { servers: [] });
    const { client } = sleepingClient();
    const operation = new AbortController();
    operation.abort(new Error("stop"));
    await expect(
      withOperationSignal(operation.signal, () => client.request(listServers)),
    ).resolves.toEqual({ servers: [] });
  });
});
