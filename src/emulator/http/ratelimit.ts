/**
 * Token buckets, one per API key: `burst` requests at once, refilled at `rate_per_second`. Every
 * /v1 answer carries RateLimit-Limit/Remaining/Reset; a refusal is 429 with Retry-After, both
 * in whole seconds, so a client can be tested against real back-off rules.
 */
import { definedOnly } from "../../lib/defined";

export interface RateLimitConfig {
  /** Sustained requests per second per key. */
  rate_per_second: number;
  /** Bucket size: requests allowed at once after a quiet period. */
  burst: number;
  /** False switches limiting off (headers are still sent). */
  enabled: boolean;
}

export const DEFAULT_RATE_LIMIT: RateLimitConfig = {
  rate_per_second: 50,
  burst: 100,
  enabled: true,
};

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds until one request would be allowed; set when refused. */
  retryAfterSeconds?: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** The tokens of `bucket` at `nowMs`: refilled at `perSecond` since its update, at most `burst`. */
export function refill(bucket: Bucket, nowMs: number, perSecond: number, burst: number): number {
  return Math.min(burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * perSecond);
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private configValue: RateLimitConfig;

  constructor(config: RateLimitConfig = DEFAULT_RATE_LIMIT) {
    this.configValue = { ...config };
  }

  get config(): RateLimitConfig {
    return { ...this.configValue };
  }

  /** New limits apply from now on; buckets start full so a change is easy to reason about. */
  configure(config: { [K in keyof RateLimitConfig]?: RateLimitConfig[K] | undefined }): void {
    this.configValue = { ...this.configValue, ...definedOnly(config) };
    this.buckets.clear();
  }

  take(key: string, nowMs = Date.now()): RateLimitDecision {
    const { rate_per_second, burst, enabled } = this.configValue;
    const bucket = this.buckets.get(key) ?? { tokens: burst, updatedMs: nowMs };
    bucket.tokens = refill(bucket, nowMs, rate_per_second, burst);
    bucket.updatedMs = nowMs;
    this.buckets.set(key, bucket);
    const allowed = !enabled || bucket.tokens >= 1;
    if (allowed && enabled) bucket.tokens -= 1;
    const headers = {
      "ratelimit-limit": String(burst),
      "ratelimit-remaining": String(Math.max(0, Math.floor(bucket.tokens))),
      "ratelimit-reset": String(Math.ceil((burst - bucket.tokens) / rate_per_second)),
    };
    if (allowed) return { allowed, headers };
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rate_per_second));
    return { allowed, headers, retryAfterSeconds };
  }
}
