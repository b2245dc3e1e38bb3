/*
 * The client's rate budget (src/api/rate-budget.ts) at the edges its tests did not pin (issue 27:
 * mutation testing): how the rate-limit headers are read, which rate is kept, what a 429 does to
 * a known budget, a request that got no answer, and a caller that gives up while waiting. Times
 * are vitest's fake clock, as in rate-budget.test.ts.
 */
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BudgetTicket, RateBudget } from "../../src/api/rate-budget";
import { budget } from "./rate-budget-fixture";

const headers = (limit: string, remaining: string, reset?: string) => ({
  "ratelimit-limit": limit,
  "ratelimit-remaining": remaining,
  ...(reset === undefined ? {} : { "ratelimit-reset": reset }),
});

/** When each of `count` requests is let through, as `i@ms`. */
function timesOf(b: RateBudget, count: number): { log: string[]; all: Promise<BudgetTicket[]> } {
  const log: string[] = [];
  const all = Promise.all(
    Array.from({ length: count }, (_, i) =>
      b.take("write").then((ticket) => {
        log.push(`${i}@${Date.now()}`);
        return ticket;
      }),
    ),
  );
  return { log, all };
}

describe("RateBudget reads the rate-limit headers", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("with blanks around the numbers, refilling at (limit - remaining) / reset up to the limit", async () => {
    const b = budget();
    b.answered(await b.take("read"), headers(" 10 ", " 4 ", " 6 "));
    expect(b.available()).toBe(4);
    expect(b.available(1_000)).toBe(5);
    expect(b.available(5_999)).toBeCloseTo(9.999, 6);
    expect(b.available(60_000)).toBe(10);
    // A time before the answer refills nothing.
    expect(b.available(-5_000)).toBe(4);
  });

  it("as no limit when a number is negative, not a number, or the limit is 0", async () => {
    for (const given of [
      headers("10", "-1", "5"),
      headers("-10", "0", "5"),
      headers("ten", "0", "5"),
      headers("0", "0", "5"),
      headers("10", "Infinity", "5"),
      { "ratelimit-limit": "10" },
    ]) {
      const b = budget();
      b.answered(await b.take("read"), given);
      expect(b.available(), JSON.stringify(given)).toBe(Number.POSITIVE_INFINITY);
    }
  });

  it("reads a reset above 10^9 as a Unix time in seconds, and one in the past as no rate", async () => {
    vi.setSystemTime(2_000_000_000_000);
    const b = budget();
    b.answered(await b.take("read"), headers("10", "4", String(2_000_000_000 + 6)));
    expect(b.available(2_000_000_001_000)).toBe(5);
    const past = budget();
    past.answered(await past.take("read"), headers("10", "4", String(1_999_999_000)));
    expect(past.available(2_000_000_060_000)).toBe(4);
    const exactly = budget();
    exactly.answered(await exactly.take("read"), headers("10", "0", "1000000000"));
    // 10^9 itself is seconds from now: 10 requests in 10^12 ms.
    expect(exactly.available(2_000_000_000_000 + 100_000_000_000)).toBeCloseTo(1, 9);
  });

  it("learns no rate from a full bucket or a zero reset, and keeps the highest rate seen", async () => {
    const full = budget();
    full.answered(await full.take("read"), headers("10", "10", "5"));
    full.answered(await full.take("read"), headers("10", "3", "0"));
    expect(full.available(60_000)).toBe(3);
    const b = budget();
    b.answered(await b.take("read"), {});
    const fast = await b.take("read");
    const slow = await b.take("read");
    b.answered(fast, headers("10", "0", "1")); // 10 a second
    b.answered(slow, headers("10", "0", "10")); // 1 a second: slower, ignored
    expect(b.available(100)).toBe(1);
  });
});

describe("RateBudget paces", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("the first request alone until an answer says whether there is a limit: a failure teaches nothing", async () => {
    const b = budget();
    const first = await b.take("write");
    const log: string[] = [];
    const tickets: BudgetTicket[] = [];
    const take = (label: string) =>
      b.take("write").then((ticket) => {
        log.push(`${label}@${Date.now()}`);
        tickets.push(ticket);
      });
    const all = Promise.all([take("second"), take("third")]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(log).toEqual([]);
    b.failed(first);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual(["second@5000"]);
    b.answered(tickets[0] as BudgetTicket, {});
    await vi.advanceTimersByTimeAsync(0);
    await all;
    expect(log).toEqual(["second@5000", "third@6000"]);
  });

  it("a request whose answer showed an empty bucket and no rate only when nothing else is out", async () => {
    const b = budget();
    b.answered(await b.take("write"), headers("10", "0"));
    const second = await b.take("write");
    const { log, all } = timesOf(b, 1);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(log).toEqual([]);
    b.answered(second, headers("10", "0"));
    await vi.advanceTimersByTimeAsync(0);
    await all;
    expect(log).toEqual(["0@3000"]);
  });

  it("an empty bucket at the rate, each wait rounded up to the next millisecond", async () => {
    const b = budget();
    // 3 a second: one every 333.3 ms.
    b.answered(await b.take("write"), headers("3", "0", "1"));
    const { log, all } = timesOf(b, 2);
    await vi.advanceTimersByTimeAsync(1_000);
    await all;
    expect(log).toEqual(["0@334", "1@667"]);
  });

  it("nothing at all after a 429 on a known budget until its wait is over, counting the refill from then", async () => {
    const b = budget();
    b.answered(await b.take("write"), headers("10", "5", "1")); // 5 left, 5 a second
    b.answered(await b.take("write"), {}, 1_000);
    expect(b.available()).toBe(0);
    const { log, all } = timesOf(b, 2);
    await vi.advanceTimersByTimeAsync(999);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    await all;
    expect(log).toEqual(["0@1000", "1@1000"]);
  });

  it("keeps the longest of two 429 waits", async () => {
    const b = budget();
    b.answered(await b.take("write"), {});
    const one = await b.take("write");
    const two = await b.take("write");
    b.answered(one, {}, 2_000);
    b.answered(two, {}, 500);
    const { log, all } = timesOf(b, 1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await all;
    expect(log).toEqual(["0@2000"]);
  });
});

describe("RateBudget and a caller that gives up", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("rejects at once with the signal's reason when it was aborted before", async () => {
    const b = budget();
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(b.take("read", controller.signal)).rejects.toThrow("cancelled");
  });

  it("rejects a waiting request with the signal's reason, and lets the next one take its place", async () => {
    const b = budget();
    b.answered(await b.take("write"), headers("10", "0", "1"));
    const controller = new AbortController();
    const log: string[] = [];
    const gaveUp = b.take("write", controller.signal).then(
      () => log.push(`given up@${Date.now()}`),
      (err: unknown) => log.push(`${String(err)}@${Date.now()}`),
    );
    const next = b.take("write").then(() => log.push(`next@${Date.now()}`));
    await vi.advanceTimersByTimeAsync(50);
    controller.abort(new Error("cancelled"));
    await vi.advanceTimersByTimeAsync(200);
    await Promise.all([gaveUp, next]);
    expect(log).toEqual(["Error: cancelled@50", "next@100"]);
  });
});

describe("RateBudget, what each answer changes", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts as spent only the requests out that were sent after the answered one", async () => {
    const b = budget();
    b.answered(await b.take("write"), headers("10", "9", "10"));
    const earlier = await b.take("write");
    const answered = await b.take("write");
    b.answered(answered, headers("10", "4"));
    // `earlier` was sent before: the 4 left already count it.
    expect(b.available()).toBe(4);
    b.failed(earlier);
  });

  it("keeps a faster rate learnt after a slower one", async () => {
    const b = budget();
    b.answered(await b.take("read"), {});
    const slow = await b.take("read");
    const fast = await b.take("read");
    b.answered(slow, headers("10", "0", "10")); // 1 a second
    b.answered(fast, headers("10", "0", "1")); // 10 a second
    expect(b.available(100)).toBe(1);
  });

  it("learns no rate from a remaining count at or above the limit", async () => {
    const above = budget();
    above.answered(await above.take("read"), headers("10", "12", "5"));
    expect(above.available(60_000)).toBe(10);
    // A full bucket teaches no rate: an empty one then, with nothing out, still lets one through.
    const b = budget();
    b.answered(await b.take("write"), headers("10", "10", "5"));
    b.answered(await b.take("write"), headers("10", "0", "0"));
    const { log, all } = timesOf(b, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(log).toEqual(["0@0"]);
    await all;
  });

  it("counts the time of a wait an answer cut short only up to the answer", async () => {
    const b = budget();
    // 9 used of 10 in 1 s: 9 a second, 1 left.
    b.answered(await b.take("write"), headers("10", "1", "1"));
    const out = await b.take("write");
    const { log, all } = timesOf(b, 1);
    // Empty: the next one waits ceil(1 / 0.009) = 112 ms, until an answer 10 ms in shows
    // 10 a second, which brings it at 10 + 100.
    await vi.advanceTimersByTimeAsync(10);
    b.answered(out, headers("10", "0", "1"));
    await vi.advanceTimersByTimeAsync(200);
    await all;
    expect(log).toEqual(["0@110"]);
  });

  it("waits with one timer however many requests wait, and leaves none once an answer ends it", async () => {
    const b = budget();
    const first = await b.take("write");
    const { all } = timesOf(b, 3);
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    b.answered(first, {});
    await vi.advanceTimersByTimeAsync(0);
    await all;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops listening to a request's signal once the request is let through", async () => {
    const b = budget();
    const controller = new AbortController();
    await b.take("write", controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    const waiting = b.take("write", controller.signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
  });
});
