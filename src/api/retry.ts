/*
 * The retry rule: which failed attempts are repeated, and after how long. Pure functions; the
 * request loop in http.ts applies them.
 *
 * WHICH REQUESTS ARE RETRIED
 *
 * Every request declares a RetryPolicy, because only the caller knows whether repeating it is
 * harmless.
 *
 * - "idempotent" (reads, deletes, absolute-state updates): repeating changes nothing, so it is
 *   retried on connection failures (refused, reset, socket closed), on our own per-attempt
 *   timeout, and on 408, 429, 500, 502, 503 and 504. A 500 is the most common transient failure
 *   of a real service; for these requests its only risk is having been applied, which the repeat
 *   makes true anyway (a repeated delete answers 404, which callers treat as done).
 *
 * - "non-idempotent" (creates, management actions, payments): repeating after the service acted
 *   would create a second server or a second charge. It is retried ONLY when the failure proves
 *   the service did not act:
 *     - the connection failed before any byte of the request was sent (refused, DNS,
 *       unreachable, connect timeout, TLS handshake),
 *     - 429 (the rate limiter rejects before the handler runs),
 *     - 503 with Retry-After (the service says it is not taking requests).
 *   It is NEVER retried when it may have been applied: a reset or closed socket after the
 *   request was sent, our timeout, 500, 502, 504, 503 without Retry-After. Those failures carry
 *   `mayHaveBeenApplied: true` so that callers look for the resource instead of creating a
 *   duplicate.
 *
 * - 4xx other than 408 and 429 are answers about the request itself: never retried.
 * - TLS certificate failures and unknown hosts are configuration problems: never retried.
 *
 * "Sent" is decided from the failure's error code (transport-errors.ts): connection-phase codes
 * (ECONNREFUSED, ENOTFOUND, EAI_AGAIN, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL,
 * UND_ERR_CONNECT_TIMEOUT, TLS certificate errors) can only happen before the request is
 * written; anything else (ECONNRESET, UND_ERR_SOCKET, EPIPE, unknown) is treated as possibly
 * sent, which errs on the safe side.
 *
 * Delays: Retry-After first (delta-seconds or HTTP-date) when present on 429/503, else
 * exponential backoff with full jitter and a cap: random() * min(cap, base * 2^retry). A
 * Retry-After longer than maxRetryAfterMs is not waited for: the error is thrown at once.
 *
 * 429 IS NOT A FAILURE OF THE REQUEST
 *
 * A 429 says the client went faster than its budget, not that the request is wrong or that the
 * service failed, and it is answered before the service acts. So it does not count against
 * maxRetries: every request of the client waits (rate-budget.ts) and this one is sent again,
 * until the call's deadline (`deadlineAt`, by default the client's rateLimitWaitMs), and only a
 * wait that would end after it fails the call with RateLimitedError (see rateLimitWait).
 */
import type { ApiError, ConnectionError, TimeoutError } from "./errors";

/** Whether a request may be repeated blindly; see the rule at the top of retry.ts. */
export type RetryPolicy = "idempotent" | "non-idempotent";

/** What the retry rule and the error mapping need to know of a request. */
export interface RequestSummary {
  /** HTTP method. */
  method: string;
  /** Request path without the query string. */
  path: string;
  /** Whether the request may be repeated blindly. */
  retry: RetryPolicy;
}

/** An attempt that got an answer outside 2xx. */
export interface StatusFailure {
  kind: "status";
  error: ApiError;
  status: number;
  /** How long the service asked us to wait; only read from 429 and 503. */
  retryAfterMs: number | undefined;
}

/** Why an attempt failed, in the terms the retry rule uses. */
export type AttemptFailure =
  | StatusFailure
  | { kind: "connection"; error: ConnectionError; sent: boolean; permanent: boolean }
  | { kind: "timeout"; error: TimeoutError };

/** The client's delay settings, in ms, and its source of jitter in [0, 1). */
export interface BackoffSettings {
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  random: () => number;
}

const IDEMPOTENT_RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** Whether the rule allows another attempt after this failure (retry budget aside). */
export function shouldRetry(policy: RetryPolicy, failure: AttemptFailure): boolean {
  switch (failure.kind) {
    case "connection":
      if (failure.permanent) return false;
      return policy === "idempotent" || !failure.sent;
    case "timeout":
      return policy === "idempotent";
    case "status":
      if (policy === "idempotent") return IDEMPOTENT_RETRY_STATUSES.has(failure.status);
      return (
        failure.status === 429 || (failure.status === 503 && failure.retryAfterMs !== undefined)
      );
  }
}

/**
 * Whether an answer with this status leaves a non-idempotent request possibly applied: any
 * server error, except 501 (the service cannot do it at all) and 503 with Retry-After (it is not
 * taking requests).
 */
export function statusMayHaveBeenApplied(
  policy: RetryPolicy,
  status: number,
  retryAfterMs: number | undefined,
): boolean {
  return (
    policy === "non-idempotent" &&
    status >= 500 &&
    status !== 501 &&
    !(status === 503 && retryAfterMs !== undefined)
  );
}

/** Delay before the next attempt, or undefined when the failure must be thrown. */
export function retryDelay(
  policy: RetryPolicy,
  failure: AttemptFailure,
  attempt: number,
  maxAttempts: number,
  backoff: BackoffSettings,
): number | undefined {
  if (attempt >= maxAttempts || !shouldRetry(policy, failure)) return undefined;
  if (failure.kind === "status" && failure.retryAfterMs !== undefined) {
    return failure.retryAfterMs <= backoff.maxRetryAfterMs ? failure.retryAfterMs : undefined;
  }
  return backoffDelay(attempt, backoff);
}

/**
 * How long a 429 asks every request of the client to wait: `Retry-After` (or `RateLimit-Reset`),
 * else the backoff after the request's `refusals`-th 429. Undefined when the request must fail instead: the service asks
 * for longer than `maxRetryAfterMs`, or the wait would end after `leftMs` (what is left of the
 * call's deadline). A 429 is answered before the service acts, so every policy may send again.
 */
export function rateLimitWait(
  failure: StatusFailure,
  leftMs: number,
  refusals: number,
  backoff: BackoffSettings,
): number | undefined {
  const wait = failure.retryAfterMs ?? backoffDelay(refusals, backoff);
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > backoff.maxRetryAfterMs) {
    return undefined;
  }
  return wait <= leftMs ? wait : undefined;
}

/** Exponential backoff with full jitter and a cap, after the given (1-based) attempt. */
export function backoffDelay(attempt: number, backoff: BackoffSettings): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(backoff.random() * ceiling);
}

/**
 * How long a 429 or 503 answer asks us to wait: `Retry-After`, or for 429 the rate limiter's
 * `RateLimit-Reset`. Other statuses are not read, so a stray header cannot delay a retry.
 */
export function retryAfterOf(
  status: number,
  headers: Readonly<Record<string, string>>,
  now: number,
): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const retryAfter = parseRetryAfter(headers["retry-after"], now);
  if (retryAfter !== undefined || status !== 429) return retryAfter;
  return parseRetryAfter(headers["ratelimit-reset"], now);
}

/**
 * Parses Retry-After (delta-seconds or HTTP-date) into ms from now. Unparseable values are
 * ignored so that the normal backoff applies.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
