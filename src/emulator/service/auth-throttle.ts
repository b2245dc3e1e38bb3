/**
 * Failed authentication is throttled per client address, so no one can guess keys at full speed
 * (docs/emulator-auth.md). A failure is a key that opens nothing: an unknown API key on /v1 or
 * /_emulator/, or a wrong key typed into the console's sign-in. A missing or malformed
 * Authorization header tries no key and is not counted; neither is any request with a right key.
 *
 * Each address may fail {@link AUTH_FAILURE_BURST} times in a row; after that it earns one more
 * attempt every {@link AUTH_FAILURE_REFILL_SECONDS} s (a token bucket). While it has none left,
 * every request from it that authenticates answers 429 `rate_limited` with `Retry-After`,
 * *without looking at the key*: answering a right key would let guessing go on at full speed.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "../http/http-errors";
import { refill } from "../http/ratelimit";

/** Failures an address may make in a row before it is throttled. */
export const AUTH_FAILURE_BURST = 20;
/** Once throttled, an address earns one more attempt every this many seconds. */
export const AUTH_FAILURE_REFILL_SECONDS = 1;
/** Addresses with recent failures remembered at most; beyond it, the oldest is forgotten. */
const MAX_CLIENTS = 10_000;

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** The address a request comes from, IPv4-mapped IPv6 addresses written as IPv4. */
export function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
}

export class AuthThrottle {
  private readonly clients = new Map<string, Bucket>();

  /** 429 with Retry-After while `client` has no attempt left; nothing otherwise. */
  assertMayTry(client: string, nowMs = Date.now()): void {
    const bucket = this.bucket(client, nowMs);
    if (bucket === undefined || bucket.tokens >= 1) return;
    const retryAfter = Math.ceil((1 - bucket.tokens) * AUTH_FAILURE_REFILL_SECONDS);
    throw new HttpError(
      429,
      "rate_limited",
      `Too many failed authentications from this address: after ${AUTH_FAILURE_BURST} failures, one more attempt is allowed every ${AUTH_FAILURE_REFILL_SECONDS} s; retry in ${retryAfter} s`,
      { headers: { "retry-after": String(retryAfter) } },
    );
  }

  /** Counts one failed authentication of `client`. */
  failed(client: string, nowMs = Date.now()): void {
    const bucket = this.bucket(client, nowMs) ?? { tokens: AUTH_FAILURE_BURST, updatedMs: nowMs };
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    if (!this.clients.has(client)) {
      // Full: the address remembered longest goes (a Map iterates in insertion order).
      const oldest = this.clients.keys().next();
      if (this.clients.size >= MAX_CLIENTS && oldest.done !== true) {
        this.clients.delete(oldest.value);
      }
      this.clients.set(client, bucket);
    }
  }

  /** Forgets every failure (a reset of the emulator). */
  clear(): void {
    this.clients.clear();
  }

  /**
   * The client's bucket refilled to `nowMs`; undefined for a client with no failure to count
   * (one that has earned every attempt back is forgotten).
   */
  private bucket(client: string, nowMs: number): Bucket | undefined {
    const bucket = this.clients.get(client);
    if (bucket === undefined) return undefined;
    bucket.tokens = refill(bucket, nowMs, 1 / AUTH_FAILURE_REFILL_SECONDS, AUTH_FAILURE_BURST);
    bucket.updatedMs = nowMs;
    if (bucket.tokens < AUTH_FAILURE_BURST) return bucket;
    this.clients.delete(client);
    return undefined;
  }
}
