/*
 * The retry rule's boundaries, each pinned to the exact delay or verdict (issue 27: mutation
 * testing found them unpinned). The rule itself is documented at the top of src/api/retry.ts.
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError, ConnectionError, RateLimitedError, TimeoutError } from "../../src/api/errors";
import { HttpClient, type HttpRequest } from "../../src/api/http";
import {
  type AttemptFailure,
  type BackoffSettings,
  backoffDelay,
  parseRetryAfter,
  type RetryPolicy,
  rateLimitWait,
  retryAfterOf,
  retryDelay,
  type StatusFailure,
  shouldRetry,
  statusMayHaveBeenApplied,
} from "../../src/api/retry";

const backoff: BackoffSettings = {
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 60_000,
  random: () => 0.5,
};
const request = { method: "GET", path: "/v1/servers" };

function status(code: number, retryAfterMs?: number): StatusFailure {
  return {
    kind: "status",
    status: code,
    retryAfterMs,
    error: new ApiError({ ...request, status: code }),
  };
}
function connection(sent: boolean, permanent: boolean): AttemptFailure {
  return {
    kind: "connection",
    sent,
    permanent,
    error: new ConnectionError({
      ...request,
      causeCode: "ECONNRESET",
      requestSent: sent,
      mayHaveBeenApplied: false,
    }),
  };
}
const timeout: AttemptFailure = {
  kind: "timeout",
  error: new TimeoutError({ ...request, timeoutMs: 30_000, mayHaveBeenApplied: false }),
};

describe("shouldRetry", () => {
  const verdicts = (failure: AttemptFailure) =>
    (["idempotent", "non-idempotent"] as RetryPolicy[]).map((p) => shouldRetry(p, failure));

  it("never repeats a permanent connection failure (a certificate or unknown host), sent or not", () => {
    expect(verdicts(connection(false, true))).toEqual([false, false]);
    expect(verdicts(connection(true, true))).toEqual([false, false]);
  });

  it("repeats a connection failure before sending for every request, after sending only idempotent ones", () => {
    expect(verdicts(connection(false, false))).toEqual([true, true]);
    expect(verdicts(connection(true, false))).toEqual([true, false]);
  });

  it("repeats our own timeout only for idempotent requests", () => {
    expect(verdicts(timeout)).toEqual([true, false]);
  });

  it("repeats exactly 408, 429, 500, 502, 503 and 504 for idempotent requests", () => {
    const statuses = [400, 404, 408, 409, 429, 500, 501, 502, 503, 504, 505];
    expect(statuses.filter((s) => shouldRetry("idempotent", status(s)))).toEqual([
      408, 429, 500, 502, 503, 504,
    ]);
  });

  it("repeats a non-idempotent request only on 429 and on 503 with Retry-After", () => {
    const statuses = [408, 429, 500, 502, 503, 504];
    expect(statuses.filter((s) => shouldRetry("non-idempotent", status(s)))).toEqual([429]);
    expect(shouldRetry("non-idempotent", status(503, 1_000))).toBe(true);
    expect(shouldRetry("non-idempotent", status(500, 1_000))).toBe(false);
    expect(shouldRetry("non-idempotent", status(429, 1_000))).toBe(true);
  });
});

describe("statusMayHaveBeenApplied", () => {
  it("marks every 5xx of a non-idempotent request but 501 and 503 with Retry-After", () => {
    const applied = (s: number, after?: number) =>
      statusMayHaveBeenApplied("non-idempotent", s, after);
    expect([499, 500, 501, 502, 503, 504].filter((s) => applied(s))).toEqual([500, 502, 503, 504]);
    expect(applied(503, 1_000)).toBe(false);
    expect(applied(502, 1_000)).toBe(true);
    expect(statusMayHaveBeenApplied("idempotent", 500, undefined)).toBe(false);
  });
});

describe("retryDelay", () => {
  it("waits a Retry-After up to maxRetryAfterMs inclusive, and throws at once beyond it", () => {
    expect(retryDelay("idempotent", status(503, 60_000), 1, 3, backoff)).toBe(60_000);
    expect(retryDelay("idempotent", status(503, 60_001), 1, 3, backoff)).toBeUndefined();
    expect(retryDelay("idempotent", status(503, 0), 1, 3, backoff)).toBe(0);
  });

  it("backs off when there is no Retry-After, and stops at the last attempt", () => {
    expect(retryDelay("idempotent", status(502), 1, 3, backoff)).toBe(50);
    expect(retryDelay("idempotent", timeout, 2, 3, backoff)).toBe(100);
    expect(retryDelay("idempotent", status(502), 3, 3, backoff)).toBeUndefined();
    expect(retryDelay("idempotent", status(502), 4, 3, backoff)).toBeUndefined();
    expect(retryDelay("non-idempotent", status(502), 1, 3, backoff)).toBeUndefined();
  });
});

describe("rateLimitWait", () => {
  it("refuses a Retry-After beyond maxRetryAfterMs even when the deadline is far", () => {
    expect(rateLimitWait(status(429, 120_000), 600_000, 1, backoff)).toBeUndefined();
    expect(rateLimitWait(status(429, 60_001), 600_000, 1, backoff)).toBeUndefined();
    expect(rateLimitWait(status(429, 60_000), 600_000, 1, backoff)).toBe(60_000);
  });

  it("waits only when the wait ends by the deadline (inclusive)", () => {
    expect(rateLimitWait(status(429, 5_000), 5_000, 1, backoff)).toBe(5_000);
    expect(rateLimitWait(status(429, 5_000), 4_999, 1, backoff)).toBeUndefined();
  });

  it("backs off after the request's n-th refusal when the 429 names no wait", () => {
    expect(rateLimitWait(status(429), 10_000, 1, backoff)).toBe(50);
    expect(rateLimitWait(status(429), 10_000, 3, backoff)).toBe(200);
    expect(rateLimitWait(status(429), 199, 3, backoff)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("is random() times base * 2^(attempt-1), capped at maxDelayMs and rounded down", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, backoff))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(backoffDelay(1, { ...backoff, random: () => 0.999 })).toBe(99);
  });
});

describe("retryAfterOf", () => {
  const now = Date.parse("2025-01-01T12:00:00Z");

  it("reads Retry-After only on 429 and 503", () => {
    const headers = { "retry-after": "2" };
    expect([408, 429, 500, 502, 503, 504].map((s) => retryAfterOf(s, headers, now))).toEqual([
      undefined,
      2_000,
      undefined,
      undefined,
      2_000,
      undefined,
    ]);
  });

  it("falls back to RateLimit-Reset on a 429 only, and prefers Retry-After", () => {
    expect(retryAfterOf(429, { "ratelimit-reset": "3" }, now)).toBe(3_000);
    expect(retryAfterOf(429, { "retry-after": "junk", "ratelimit-reset": "3" }, now)).toBe(3_000);
    expect(retryAfterOf(429, { "retry-after": "1", "ratelimit-reset": "3" }, now)).toBe(1_000);
    expect(retryAfterOf(503, { "ratelimit-reset": "3" }, now)).toBeUndefined();
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2015-10-21T07:28:00Z");

  it("reads delta-seconds, fractional ones too, around blanks", () => {
    expect(parseRetryAfter("2", now)).toBe(2_000);
    expect(parseRetryAfter(" 2 ", now)).toBe(2_000);
    expect(parseRetryAfter("1.5", now)).toBe(1_500);
    expect(parseRetryAfter("1.25", now)).toBe(1_250);
    expect(parseRetryAfter("0", now)).toBe(0);
  });

  it("reads an HTTP-date as the time left until it, never negative", () => {
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now)).toBe(0);
  });

  it("ignores junk, so that the normal backoff applies", () => {
    for (const junk of ["x2", "2x", "soon", "2 seconds", ""]) {
      expect(parseRetryAfter(junk, now)).toBeUndefined();
    }
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("the client under a maxRetryAfterMs cap", () => {
  const ORIGIN = "https://api.test";
  const listServers: HttpRequest<unknown> = {
    method: "GET",
    path: "/v1/servers",
    response: z.unknown(),
    retry: "idempotent",
  };
  let client: HttpClient | undefined;
  beforeAll(() => nock.disableNetConnect());
  afterEach(async () => {
    nock.cleanAll();
    await client?.close();
  });
  afterAll(() => nock.enableNetConnect());

  it("does not wait out a 120 s Retry-After under a 60 s cap, though the deadline would allow it", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/servers")
      .reply(
        429,
        { success: false, message: "slow down", code: "rate_limited" },
        {
          "Retry-After": "120",
          "x-request-id": "req-cap",
        },
      )
      .get("/v1/servers")
      .reply(200, {});
    const delays: number[] = [];
    client = new HttpClient({
      endpoint: ORIGIN,
      apiKey: "ck_test_cap_0123456789abcdef",
      maxRetryAfterMs: 60_000,
      rateLimitWaitMs: 600_000,
      random: () => 0.5,
      sleep: async (ms) => {
        delays.push(ms);
      },
      logger: { debug() {} },
    });
    const error = await client.request(listServers).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).message).toBe(
      "GET /v1/servers failed: 429 rate_limited: slow down (request id req-cap; retry after 120s)",
    );
    expect(delays).toEqual([]);
    expect(scope.pendingMocks()).toHaveLength(1);
  });
});
