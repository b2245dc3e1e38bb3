/**
 * The client's rate budget (src/api/rate-budget.ts) and what the HTTP client does with a 429:
 * HTTP policy, so nock and fake timers; the whole fleet under a limit is in
 * test/programs/fleet-counts.test.ts.
 */
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RateLimitedError } from "../../src/api/errors";
import { HttpClient, type HttpClientOptions, type HttpRequest } from "../../src/api/http";
import type { BudgetTicket, RateBudget, RequestPriority } from "../../src/api/rate-budget";
import { budget } from "./rate-budget-fixture";

/** Headers of a service whose bucket holds `limit` and refills `perSecond` a second. */
function limitHeaders(limit: number, remaining: number, perSecond: number) {
  return {
    "ratelimit-limit": String(limit),
    "ratelimit-remaining": String(remaining),
    "ratelimit-reset": String(Math.ceil((limit - remaining) / perSecond)),
  };
}

describe("RateBudget", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Takes `count` tickets of `priority`, recording when each was let through. */
  function takeMany(b: RateBudget, count: number, priority: RequestPriority, log: string[]) {
    return Array.from({ length: count }, (_, i) =>
      b.take(priority).then((ticket) => {
        log.push(`${priority}${i}@${Date.now()}`);
        return ticket;
      }),
    );
  }

  it("lets a service without limit headers take every request at once, after the first answer", async () => {
    const b = budget();
    const first = await b.take("read");
    const log: string[] = [];
    const rest = takeMany(b, 20, "read", log);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual([]);
    b.answered(first, {});
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all(rest);
    expect(log).toHaveLength(20);
    expect(log.every((l) => l.endsWith("@0"))).toBe(true);
  });

  it("paces requests at the rate the answers show once the bucket is empty", async () => {
    const b = budget();
    const first = await b.take("write");
    // 10 a second, nothing left.
    b.answered(first, limitHeaders(10, 0, 10));
    const log: string[] = [];
    const tickets = takeMany(b, 5, "write", log);
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(tickets);
    expect(log).toEqual(["write0@100", "write1@200", "write2@300", "write3@400", "write4@500"]);
  });

  it("serves writes before reads before background polls while requests wait", async () => {
    const b = budget();
    const first = await b.take("read");
    b.answered(first, limitHeaders(10, 0, 10));
    const log: string[] = [];
    const all = [
      ...takeMany(b, 2, "background", log),
      ...takeMany(b, 2, "read", log),
      ...takeMany(b, 2, "write", log),
    ];
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(all);
    expect(log.map((l) => l.split("@")[0])).toEqual([
      "write0",
      "write1",
      "read0",
      "read1",
      "background0",
      "background1",
    ]);
  });

  it("holds back every request of the client for a 429's Retry-After", async () => {
    const b = budget();
    const first = await b.take("write");
    b.answered(first, {});
    const second = await b.take("write");
    b.answered(second, {}, 2_000);
    const log: string[] = [];
    const later = takeMany(b, 3, "read", log);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(later);
    expect(log).toEqual(["read0@2000", "read1@2000", "read2@2000"]);
  });

  it("counts requests still out that were sent after the answered one as spent", async () => {
    const b = budget();
    const first = await b.take("write");
    b.answered(first, limitHeaders(10, 9, 10));
    const out: BudgetTicket[] = [];
    for (let i = 0; i < 5; i++) out.push(await b.take("write"));
    // The first of them answers with 4 left: the other four out are not in it yet.
    b.answered(out[0] as BudgetTicket, limitHeaders(10, 4, 10));
    expect(b.available()).toBe(0);
  });
});

const ORIGIN = "https://api.test";
const KEY = "ck_test_budget_0123456789abcdef";
const createServer: HttpRequest<unknown> = {
  method: "POST",
  path: "/v1/servers",
  body: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web" },
  response: z.unknown(),
  retry: "non-idempotent",
};
const rateLimited = { success: false, message: "slow down", code: "rate_limited" };

describe("a 429 through the HTTP client", () => {
  const clients: HttpClient[] = [];
  function makeClient(options: Partial<HttpClientOptions> = {}) {
    const delays: number[] = [];
    let now = 1_000_000;
    const client = new HttpClient({
      endpoint: ORIGIN,
      apiKey: KEY,
      logger: { debug() {} },
      now: () => now,
      sleep: async (ms) => {
        delays.push(ms);
        now += ms;
      },
      ...options,
    });
    clients.push(client);
    return { client, delays };
  }
  beforeAll(() => nock.disableNetConnect());
  afterEach(async () => {
    nock.cleanAll();
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(() => nock.enableNetConnect());

  it("is waited out within the deadline, however many come, without spending the retries", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .times(8)
      .reply(429, rateLimited, { "Retry-After": "1" })
      .post("/v1/servers")
      .reply(201, [{ id: 7 }]);
    const { client, delays } = makeClient({ maxRetries: 2 });
    await expect(client.request(createServer)).resolves.toEqual([{ id: 7 }]);
    expect(scope.isDone()).toBe(true);
    expect(delays).toEqual(Array(8).fill(1_000));
  });

  it("fails with RateLimitedError when waiting would pass the call's deadline", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .times(3)
      .reply(429, rateLimited, { "Retry-After": "2" })
      .post("/v1/servers")
      .reply(201, [{ id: 7 }]);
    const { client, delays } = makeClient();
    const err = await client
      .request(createServer, { deadlineAt: 1_000_000 + 5_000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(delays).toEqual([2_000, 2_000]);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("makes the next request of the client wait too, without being sent to a 429", async () => {
    const scope = nock(ORIGIN)
      .post("/v1/servers")
      .reply(429, rateLimited, { "Retry-After": "3" })
      .post("/v1/servers")
      .reply(201, [{ id: 7 }])
      .get("/v1/servers")
      .reply(200, []);
    const { client, delays } = makeClient();
    await client.request(createServer);
    await client.request({ ...createServer, method: "GET", body: undefined, retry: "idempotent" });
    expect(scope.isDone()).toBe(true);
    expect(delays).toEqual([3_000]);
  });
});
