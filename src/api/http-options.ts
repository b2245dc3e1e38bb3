/**
 * The settings of an `HttpClient` (http.ts) and of each call, their defaults, and the checks that
 * refuse a bad setting when the client is made rather than on the first request.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import * as tls from "node:tls";
import { whyUnreadable } from "../lib/read-failure";
import { type AbortedError, ConfigurationError, InsecureEndpointError } from "./errors";
import type { Logger } from "./log";
import type { RequestPriority } from "./rate-budget";

/** Options of an `HttpClient`. */
export interface HttpClientOptions {
  /**
   * Base URL of the API, e.g. `https://127.0.0.1:8443`. Request paths (`/v1/...`) are appended
   * to it, keeping any base path. Must be `https://`, else {@link InsecureEndpointError}.
   */
  endpoint: string;
  /** The API key, sent as `Authorization: ApiKey <key>`. Never logged, never in errors. */
  apiKey: string;
  /**
   * A CA certificate to trust in addition to the system roots: PEM text (starting with
   * `-----BEGIN`) or the path of a PEM file. Needed for the local emulator.
   */
  caCert?: string;
  /** Timeout of each attempt (until the whole answer is read), in ms. Default 30 000. */
  timeoutMs?: number;
  /** How many times a failed request may be retried (so at most 1 + maxRetries attempts). Default 4. */
  maxRetries?: number;
  /** Base of the exponential backoff, in ms. Default 500. */
  retryBaseDelayMs?: number;
  /** Cap of the exponential backoff, in ms. Default 8 000. */
  retryMaxDelayMs?: number;
  /**
   * A Retry-After longer than this (ms) is not waited for: the request fails at once with the
   * answer's error (RateLimitedError for 429). Default 60 000.
   */
  maxRetryAfterMs?: number;
  /**
   * How long a call may wait out the service's rate limit (429 answers, and the client's own
   * pacing to avoid them) before it fails with RateLimitedError, in ms, unless the call sets its
   * `deadlineAt`. 429s do not count against `maxRetries` (but `maxRetries: 0` fails at the first
   * one). Default 600 000 (10 minutes, the resources' default operation timeout).
   */
  rateLimitWaitMs?: number;
  /** Where debug lines go. Default: from `CLOUDINFRA_LOG` (`debug` writes to stderr). */
  logger?: Logger;
  /** Appended to the default User-Agent (`pulumi-cloudinfra/<version> node/<version>`). */
  userAgent?: string;
  /** Source of randomness for the backoff jitter, in [0, 1). For tests. Default Math.random. */
  random?: () => number;
  /** Waits between attempts; must reject or return early when `signal` aborts. For tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Current time in ms since the epoch, to interpret HTTP-date Retry-After. For tests. */
  now?: () => number;
}

/** Per-call overrides of the client's policy; the last argument of every client method. */
export interface RequestOptions {
  /** Timeout of each attempt of this call, in ms. */
  timeoutMs?: number;
  /** Maximum number of retries of this call (0 disables retries). */
  maxRetries?: number;
  /** Abandons the call (and any wait before a retry) with {@link AbortedError}. */
  signal?: AbortSignal;
  /**
   * Until when (ms since the epoch) this call may wait out the rate limit: its operation's
   * deadline. Default: the client's `rateLimitWaitMs` from the call's start.
   */
  deadlineAt?: number;
  /**
   * Who goes first when calls wait for the rate budget (rate-budget.ts): `write` (default for
   * anything but GET), `read` (default for GET), `background` (status polls).
   */
  priority?: RequestPriority;
}

export const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 4,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  rateLimitWaitMs: 600_000,
} as const;

function checkNonNegative(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new ConfigurationError(`${name} must be a non-negative number, got ${String(value)}`);
  }
}

function checkTimeout(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
    throw new ConfigurationError(`${name} must be a positive number of ms, got ${String(value)}`);
  }
}

function checkRetries(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    throw new ConfigurationError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
}

/** Refuses a per-call timeout or retry count the client itself would refuse. */
export function checkRequestOptions(options: RequestOptions): void {
  checkTimeout("timeoutMs", options.timeoutMs);
  checkRetries("maxRetries", options.maxRetries);
}

/** Refuses an empty key and out-of-range numbers; the endpoint is checked by {@link parseEndpoint}. */
export function checkClientOptions(options: HttpClientOptions): void {
  if (options.apiKey === "") {
    throw new ConfigurationError("apiKey is empty (cloudinfra:apiKey or CLOUDINFRA_API_KEY)");
  }
  checkRequestOptions(options);
  checkNonNegative("retryBaseDelayMs", options.retryBaseDelayMs);
  checkNonNegative("retryMaxDelayMs", options.retryMaxDelayMs);
  checkNonNegative("maxRetryAfterMs", options.maxRetryAfterMs);
  checkNonNegative("rateLimitWaitMs", options.rateLimitWaitMs);
}

/**
 * The origin and base path (without a trailing `/`) of an `https://` endpoint. Anything else
 * would send the key in clear text or to a surprising place, so it is refused.
 */
export function parseEndpoint(endpoint: string): { origin: string; basePath: string } {
  const trimmed = endpoint.trim();
  if (!/^https:\/\//i.test(trimmed)) {
    // Never echo the whole value: a mistaken paste could contain a secret.
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1];
    throw new InsecureEndpointError(
      `refusing endpoint with ${scheme === undefined ? "no scheme" : `scheme "${scheme}:"`}: the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)`,
    );
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigurationError(
      "the endpoint is not a valid URL (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)",
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigurationError(
      "the endpoint must not contain credentials; pass the API key as apiKey",
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigurationError("the endpoint must not have a query string or fragment");
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, "") };
}

/**
 * The CAs to trust when `caCert` is given: the default trust store plus that CA. Undefined
 * without one, leaving undici's defaults alone.
 */
export function trustedCas(caCert: string | undefined): string[] | undefined {
  if (caCert === undefined || caCert === "") return undefined;
  // `ca` replaces the default trust store, so the defaults (system roots plus
  // NODE_EXTRA_CA_CERTS) are passed along with the extra CA.
  const defaults =
    typeof tls.getCACertificates === "function"
      ? tls.getCACertificates("default")
      : [...tls.rootCertificates];
  return [...defaults, loadCaCert(caCert)];
}

/** Reads a CA given as PEM text or a file path, and checks it is a certificate. */
function loadCaCert(caCert: string): string {
  let pem: string;
  let source: string;
  if (caCert.trimStart().startsWith("-----BEGIN")) {
    pem = caCert;
    source = "caCert (PEM text)";
  } else {
    source = `CA certificate file "${caCert}"`;
    try {
      pem = readFileSync(caCert, "utf8");
    } catch (err) {
      throw new ConfigurationError(
        `cannot read the ${source} (${whyUnreadable(err)}); set cloudinfra:caCert or CLOUDINFRA_CA_CERT to a PEM file or PEM text`,
      );
    }
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw new ConfigurationError(
      `the ${source} is not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")`,
    );
  }
  return pem;
}
