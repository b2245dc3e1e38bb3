/**
 * The throttle of failed authentication, on its own clock: a burst of failures per address, then
 * one attempt per second, refusals that say when to retry, and a bounded memory of addresses.
 */
import { describe, expect, it } from "vitest";
import {
  AUTH_FAILURE_BURST,
  AUTH_FAILURE_REFILL_SECONDS,
  AuthThrottle,
} from "../../src/emulator/service/auth-throttle";

/** The status and Retry-After of `client`'s next attempt at `nowMs`: 0 when it may try. */
function nextAttempt(throttle: AuthThrottle, client: string, nowMs: number) {
  try {
    throttle.assertMayTry(client, nowMs);
    return { status: 0, retryAfter: undefined };
  } catch (error) {
    const refused = error as { status: number; headers: Record<string, string>; message: string };
    return { status: refused.status, retryAfter: refused.headers["retry-after"] };
  }
}

describe("AuthThrottle", () => {
  it("lets an address fail 20 times, then answers 429 with Retry-After: 1", () => {
    expect([AUTH_FAILURE_BURST, AUTH_FAILURE_REFILL_SECONDS]).toEqual([20, 1]);
    const throttle = new AuthThrottle();
    for (let i = 0; i < 20; i++) {
      expect(nextAttempt(throttle, "10.0.0.1", 0).status).toBe(0);
      throttle.failed("10.0.0.1", 0);
    }
    expect(nextAttempt(throttle, "10.0.0.1", 0)).toEqual({ status: 429, retryAfter: "1" });
    expect(() => throttle.assertMayTry("10.0.0.1", 0)).toThrow(
      "Too many failed authentications from this address: after 20 failures, one more attempt is allowed every 1 s; retry in 1 s",
    );
    // Another address is not held back by this one.
    expect(nextAttempt(throttle, "10.0.0.2", 0).status).toBe(0);
  });

  it("earns one attempt back per second, and forgets an address once all are back", () => {
    const throttle = new AuthThrottle();
    for (let i = 0; i < 20; i++) throttle.failed("a", 0);
    expect(nextAttempt(throttle, "a", 999).status).toBe(429);
    expect(nextAttempt(throttle, "a", 1000).status).toBe(0);
    throttle.failed("a", 1000);
    expect(nextAttempt(throttle, "a", 1500)).toEqual({ status: 429, retryAfter: "1" });
    expect(nextAttempt(throttle, "a", 2000).status).toBe(0);
    // 20 s later every attempt is back: a burst of 20 again.
    for (let i = 0; i < 20; i++) throttle.failed("a", 22_000);
    expect(nextAttempt(throttle, "a", 22_000).status).toBe(429);
  });

  it("a few failures, spread out as tests make them, never reach the limit", () => {
    const throttle = new AuthThrottle();
    for (let i = 0; i < 1000; i++) {
      expect(nextAttempt(throttle, "127.0.0.1", i * 1000).status).toBe(0);
      throttle.failed("127.0.0.1", i * 1000);
    }
  });

  it("remembers at most 10,000 addresses: the oldest is forgotten first", () => {
    const throttle = new AuthThrottle();
    for (let i = 0; i < 20; i++) throttle.failed("first", 0);
    expect(nextAttempt(throttle, "first", 0).status).toBe(429);
    for (let i = 0; i < 10_000; i++) throttle.failed(`10.1.${i >> 8}.${i & 255}`, 0);
    expect(nextAttempt(throttle, "first", 0).status).toBe(0);
  });

  it("forgets everything on clear (an emulator reset)", () => {
    const throttle = new AuthThrottle();
    for (let i = 0; i < 20; i++) throttle.failed("a", 0);
    throttle.clear();
    expect(nextAttempt(throttle, "a", 0).status).toBe(0);
  });
});
