/*
 * The one place for HTTP policy: TLS, authentication, timeouts, retries, error mapping, logging.
 *
 * WHICH REQUESTS ARE RETRIED
 *
 * Every request declares a RetryPolicy, because only the caller knows whether repeating it is
 * harmless.
 *
 * - "idempotent" (reads, deletes, absolute-state updates): repeating changes nothing, so it is
 *   retried on connection failures (refused, reset, socket closed), on our own per-attempt
 *   timeout, and on 408, 429, 502, 503 and 504.
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
 * "Sent" is decided from the failure's error code: connection-phase codes (ECONNREFUSED,
 * ENOTFOUND, EAI_AGAIN, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL, UND_ERR_CONNECT_TIMEOUT, TLS
 * certificate errors) can only happen before the request is written; anything else (ECONNRESET,
 * UND_ERR_SOCKET, EPIPE, unknown) is treated as possibly sent, which errs on the safe side.
 *
 * Delays: Retry-After first (delta-seconds or HTTP-date) when present on 429/503, else
 * exponential backoff with full jitter and a cap: random() * min(cap, base * 2^retry). A
 * Retry-After longer than maxRetryAfterMs is not waited for: the error is thrown at once.
 */

import { randomBytes, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import * as tls from "node:tls";
import { Agent, request as undiciRequest } from "undici";
import type { z } from "zod";
import {
  AbortedError,
  type ApiError,
  ConfigurationError,
  ConnectionError,
  createApiError,
  type FieldError,
  InsecureEndpointError,
  RequestValidationError,
  type ResponseIssue,
  ResponseValidationError,
  TimeoutError,
} from "./errors";
import { type Logger, loggerFromEnv } from "./log";
import { redact, scrub } from "./redact";
import { PACKAGE_VERSION } from "./version";

/** Options of an {@link HttpClient}. */
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
}

/** Whether a request may be repeated blindly; see the rules at the top of http.ts. */
export type RetryPolicy = "idempotent" | "non-idempotent";

/** One file of a multipart body. */
export interface MultipartFile {
  /** Form field name (`attachments`). */
  field: string;
  /** File name announced to the service. */
  filename: string;
  /** MIME type. Default `application/octet-stream`. */
  contentType?: string;
  /** File content. */
  data: Uint8Array;
}

/** A `multipart/form-data` body. */
export interface MultipartBody {
  /** Plain text fields. */
  fields: Record<string, string>;
  /** Files, in order; a field name may repeat. */
  files: MultipartFile[];
}

/** One API call, as the typed client describes it. */
export interface HttpRequest<T> {
  /** HTTP method. */
  method: "GET" | "POST" | "DELETE";
  /** Starts with `/v1/` or `/_emulator/`, already percent-encoded. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON (`Content-Type: application/json`). */
  body?: unknown;
  /** Sent as `multipart/form-data`. Exclusive with `body`. */
  multipart?: MultipartBody;
  /** The answer is parsed with it; a mismatch is a {@link ResponseValidationError}. */
  response: z.ZodType<T>;
  /** Whether the request may be repeated blindly; decides which failures are retried. */
  retry: RetryPolicy;
}

/** A parsed answer with its metadata. */
export interface HttpResponse<T> {
  /** The body, parsed by the request's schema. */
  data: T;
  /** HTTP status. */
  status: number;
  /** Response headers, lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The `x-request-id` response header. */
  requestId: string | undefined;
}

const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 4,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
} as const;

// Undici's own connect timeout; ours (timeoutMs) still bounds the whole attempt.
const CONNECT_TIMEOUT_MS = 10_000;

/** Codes that can only arise before a byte of the request was written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Certificate verification failures: the request never left, and retrying cannot help. */
const TLS_CERT_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
]);

/** Configuration problems: retrying cannot help. */
const PERMANENT_CONNECT_CODES = new Set(["ENOTFOUND", "EAI_FAIL", "EAI_NONAME"]);

const IDEMPOTENT_RETRY_STATUSES = new Set([408, 429, 502, 503, 504]);

/** Why an attempt failed, in the terms the retry rules use. */
interface StatusFailure {
  kind: "status";
  error: ApiError;
  status: number;
  retryAfterMs: number | undefined;
}

type AttemptFailure =
  | StatusFailure
  | { kind: "connection"; error: ConnectionError; sent: boolean; permanent: boolean }
  | { kind: "timeout"; error: TimeoutError };

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

interface EncodedBody {
  bytes: Buffer | undefined;
  contentType: string | undefined;
  /** What the debug log shows of the body (redacted, files summarised). */
  logView: unknown;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

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
      const code = errorCode(err);
      const why = code === "ENOENT" ? "no such file" : (code ?? "unreadable");
      throw new ConfigurationError(
        `cannot read the ${source} (${why}); set cloudinfra:caCert or CLOUDINFRA_CA_CERT to a PEM file or PEM text`,
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

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code;
  // Happy-eyeballs connects report an AggregateError; undici sometimes wraps the system error.
  const nested = (err as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0) return errorCode(nested[0]);
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== err) return errorCode(cause);
  return undefined;
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
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

/** `$.servers[0].id` from a zod issue path. */
function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

const ErrorBodyFieldErrors = (value: unknown): FieldError[] => {
  if (!Array.isArray(value)) return [];
  const out: FieldError[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) continue;
    const field = (item as { field?: unknown }).field;
    const message = (item as { message?: unknown }).message;
    if (typeof field === "string" || typeof message === "string") {
      out.push({
        field: typeof field === "string" ? field : "(unknown)",
        message: typeof message === "string" ? message : "invalid",
      });
    }
  }
  return out;
};

function stringProp(obj: unknown, key: string): string | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const value = (obj as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

function isHtml(text: string, contentType: string | undefined): boolean {
  return (contentType ?? "").includes("html") || /^\s*<(!doctype|html)/i.test(text);
}

function encodeMultipart(body: MultipartBody): { bytes: Buffer; contentType: string } {
  const boundary = `----cloudinfra${randomBytes(12).toString("hex")}`;
  const parts: Buffer[] = [];
  // Quotes and line breaks in names would break the part headers; the spec's names never have them.
  const quote = (s: string): string => s.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
  for (const [name, value] of Object.entries(body.fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  for (const file of body.files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.filename)}"\r\nContent-Type: ${file.contentType ?? "application/octet-stream"}\r\n\r\n`,
      ),
      Buffer.from(file.data),
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { bytes: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function encodeBody(req: HttpRequest<unknown>): EncodedBody {
  if (req.multipart !== undefined) {
    const { bytes, contentType } = encodeMultipart(req.multipart);
    return {
      bytes,
      contentType,
      logView: {
        fields: redact(req.multipart.fields),
        files: req.multipart.files.map((f) => ({
          field: f.field,
          filename: f.filename,
          bytes: f.data.byteLength,
        })),
      },
    };
  }
  if (req.body !== undefined) {
    return {
      bytes: Buffer.from(JSON.stringify(req.body), "utf8"),
      contentType: "application/json",
      logView: redact(req.body),
    };
  }
  return { bytes: undefined, contentType: undefined, logView: undefined };
}

function scrubDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, secrets));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[scrub(k, secrets)] = scrubDeep(v, secrets);
    return out;
  }
  return value;
}

/**
 * The HTTP client every API call goes through. One keep-alive connection pool per instance;
 * call {@link HttpClient.close} when done so the process can exit promptly.
 */
export class HttpClient {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #secrets: readonly string[];
  readonly #authorization: string;
  readonly #userAgent: string;
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseDelayMs: number;
  readonly #retryMaxDelayMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;

  constructor(options: HttpClientOptions) {
    const endpoint = options.endpoint.trim();
    if (!/^https:\/\//i.test(endpoint)) {
      // Never echo the whole value: a mistaken paste could contain a secret.
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(endpoint)?.[1];
      throw new InsecureEndpointError(
        `refusing endpoint with ${scheme === undefined ? "no scheme" : `scheme "${scheme}:"`}: the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)`,
      );
    }
    let url: URL;
    try {
      url = new URL(endpoint);
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
    if (options.apiKey === "") {
      throw new ConfigurationError("apiKey is empty (cloudinfra:apiKey or CLOUDINFRA_API_KEY)");
    }
    checkTimeout("timeoutMs", options.timeoutMs);
    checkRetries("maxRetries", options.maxRetries);
    checkNonNegative("retryBaseDelayMs", options.retryBaseDelayMs);
    checkNonNegative("retryMaxDelayMs", options.retryMaxDelayMs);
    checkNonNegative("maxRetryAfterMs", options.maxRetryAfterMs);

    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, "");
    this.#secrets = [options.apiKey];
    this.#authorization = `ApiKey ${options.apiKey}`;
    const ua = `pulumi-cloudinfra/${PACKAGE_VERSION} node/${process.version}`;
    this.#userAgent = options.userAgent ? `${ua} ${options.userAgent}` : ua;
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
    this.#retryMaxDelayMs = options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs;
    this.#logger = options.logger ?? loggerFromEnv();
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#now = options.now ?? Date.now;

    const connect: { ca?: string[] } = {};
    if (options.caCert !== undefined && options.caCert !== "") {
      // `ca` replaces the default trust store, so the defaults (system roots plus
      // NODE_EXTRA_CA_CERTS) are passed along with the extra CA.
      const defaults =
        typeof tls.getCACertificates === "function"
          ? tls.getCACertificates("default")
          : [...tls.rootCertificates];
      connect.ca = [...defaults, loadCaCert(options.caCert)];
    }
    this.#agent = new Agent({
      connect,
      connectTimeout: Math.min(CONNECT_TIMEOUT_MS, Math.max(1, this.#timeoutMs)),
      // Our per-attempt timer is the only clock: undici's own would fire with other errors.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Sends the request under the retry policy and returns the parsed body. */
  async request<T>(req: HttpRequest<T>, options?: RequestOptions): Promise<T> {
    return (await this.requestWithResponse(req, options)).data;
  }

  /** Like {@link HttpClient.request}, with the status, headers and request id. */
  async requestWithResponse<T>(
    req: HttpRequest<T>,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    checkTimeout("timeoutMs", options.timeoutMs);
    checkRetries("maxRetries", options.maxRetries);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const maxRetries = options.maxRetries ?? this.#maxRetries;
    const signal = options.signal;
    const method = req.method;
    const path = req.path;
    const maxAttempts = maxRetries + 1;

    if (signal?.aborted) throw new AbortedError(method, path, signal.reason);
    const url = this.#url(req);
    const body = encodeBody(req as HttpRequest<unknown>);

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      let answer: RawAnswer;
      try {
        answer = await this.#send(req, url, body, timeoutMs, signal);
      } catch (err) {
        const failure = this.#failureFromThrown(err, req, timeoutMs, signal, attempt);
        const delay = this.#retryDelay(req.retry, failure, attempt, maxAttempts);
        this.#logAttempt(req, body, attempt, maxAttempts, started, {
          error: failure.error.message,
          ...(delay !== undefined ? { retryInMs: delay } : {}),
        });
        if (delay === undefined) throw failure.error;
        await this.#wait(delay, signal, method, path);
        continue;
      }

      const requestId = answer.headers["x-request-id"];
      if (answer.status >= 200 && answer.status < 300) {
        const parsed = this.#parseSuccess(req, answer, requestId);
        this.#logAttempt(req, body, attempt, maxAttempts, started, {
          status: answer.status,
          requestId,
          response: parsed.logView,
        });
        if (parsed.error !== undefined) throw parsed.error;
        return {
          data: parsed.data as T,
          status: answer.status,
          headers: answer.headers,
          requestId,
        };
      }

      const failure = this.#failureFromStatus(req, answer, requestId, attempt);
      const delay = this.#retryDelay(req.retry, failure, attempt, maxAttempts);
      this.#logAttempt(req, body, attempt, maxAttempts, started, {
        status: answer.status,
        requestId,
        response: failure.error.body,
        ...(delay !== undefined ? { retryInMs: delay } : {}),
      });
      if (delay === undefined) throw failure.error;
      await this.#wait(delay, signal, method, path);
    }
  }

  /** Closes the connection pool. Requests made after this fail. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  #url(req: HttpRequest<unknown>): string {
    // A path that does not start at the root could move the request (and the API key) to
    // another host once concatenated ("@evil.example/"), so it is checked, not trusted.
    if (!/^\/(v1|_emulator)\//.test(req.path) || /[?#\s]/.test(req.path)) {
      throw new RequestValidationError(`${req.method} request`, [
        {
          field: "path",
          message: "must start with /v1/ or /_emulator/ and hold no query, fragment or spaces",
        },
      ]);
    }
    let url = `${this.#origin}${this.#basePath}${req.path}`;
    if (req.query !== undefined) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(req.query)) {
        if (value !== undefined) params.append(key, String(value));
      }
      const qs = params.toString();
      if (qs !== "") url += `?${qs}`;
    }
    return url;
  }

  async #send(
    req: HttpRequest<unknown>,
    url: string,
    body: EncodedBody,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RawAnswer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimedOut()), timeoutMs);
    const onCallerAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    // Settles as soon as either clock fires, whatever the transport does with the abort.
    const abandoned = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
        once: true,
      });
    });
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      accept: "application/json",
      "user-agent": this.#userAgent,
    };
    if (body.contentType !== undefined) headers["content-type"] = body.contentType;
    const exchange = (async (): Promise<RawAnswer> => {
      const res = await undiciRequest(url, {
        method: req.method,
        headers,
        body: body.bytes ?? null,
        signal: controller.signal,
        dispatcher: this.#agent,
      });
      // The timer keeps running while the body streams in: a stalled body is a timeout too.
      const text = await res.body.text();
      return { status: res.statusCode, headers: flattenHeaders(res.headers), text };
    })();
    // Whichever loses the race must not surface as an unhandled rejection.
    exchange.catch(() => {});
    abandoned.catch(() => {});
    try {
      return await Promise.race([exchange, abandoned]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  #failureFromThrown(
    err: unknown,
    req: HttpRequest<unknown>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    attempt: number,
  ): AttemptFailure {
    const { method, path } = req;
    const nonIdempotent = req.retry === "non-idempotent";
    // The caller's abort wins over everything: they no longer want an answer or a retry.
    if (signal?.aborted) throw new AbortedError(method, path, signal.reason, nonIdempotent);
    if (err instanceof TimedOut || (err as { cause?: unknown } | null)?.cause instanceof TimedOut) {
      return {
        kind: "timeout",
        error: new TimeoutError({
          method,
          path,
          timeoutMs,
          mayHaveBeenApplied: nonIdempotent,
          attempts: attempt,
        }),
      };
    }
    const code = errorCode(err);
    const tlsCert = code !== undefined && TLS_CERT_CODES.has(code);
    const sent = !(tlsCert || (code !== undefined && NOT_SENT_CODES.has(code)));
    const permanent = tlsCert || (code !== undefined && PERMANENT_CONNECT_CODES.has(code));
    const rawMessage = err instanceof Error ? err.message : String(err);
    let hint: string | undefined;
    if (tlsCert) {
      hint =
        "the server's certificate is not trusted; for the emulator set cloudinfra:caCert or CLOUDINFRA_CA_CERT to its CA";
    } else if (code === "ECONNREFUSED") {
      hint = "nothing is listening at the endpoint; is the service (or emulator) running?";
    } else if (permanent) {
      hint = "the endpoint's host name does not resolve; check cloudinfra:endpoint";
    }
    const attempts = attempt > 1 ? ` after ${attempt} attempts` : "";
    return {
      kind: "connection",
      sent,
      permanent,
      error: new ConnectionError({
        method,
        path,
        causeCode: code,
        requestSent: sent,
        mayHaveBeenApplied: nonIdempotent && sent,
        cause: this.#safeCause(err),
        detail: `${scrub(rawMessage, this.#secrets) || "connection failed"}${attempts}`,
        hint,
      }),
    };
  }

  /** The error itself, unless its text carries a secret: then a scrubbed stand-in. */
  #safeCause(err: unknown): unknown {
    if (!(err instanceof Error)) return err;
    const text = `${err.message}\n${err.stack ?? ""}`;
    if (scrub(text, this.#secrets) === text) return err;
    const copy = new Error(scrub(err.message, this.#secrets));
    copy.stack = scrub(err.stack ?? "", this.#secrets);
    const code = errorCode(err);
    return code === undefined ? copy : Object.assign(copy, { code });
  }

  #failureFromStatus(
    req: HttpRequest<unknown>,
    answer: RawAnswer,
    requestId: string | undefined,
    attempt: number,
  ): StatusFailure {
    const status = answer.status;
    const retryAfterMs =
      status === 429 || status === 503
        ? (parseRetryAfter(answer.headers["retry-after"], this.#now()) ??
          (status === 429
            ? parseRetryAfter(answer.headers["ratelimit-reset"], this.#now())
            : undefined))
        : undefined;
    const text = scrub(answer.text, this.#secrets);
    let body: unknown = text === "" ? undefined : text;
    let code: string | undefined;
    let serviceMessage: string | undefined;
    let fieldErrors: FieldError[] = [];
    try {
      const json: unknown = JSON.parse(text);
      body = redact(json);
      code = stringProp(json, "code");
      serviceMessage = stringProp(json, "message");
      fieldErrors = ErrorBodyFieldErrors((json as { errors?: unknown } | null)?.errors);
    } catch {
      if (text.trim() !== "") {
        serviceMessage = isHtml(text, answer.headers["content-type"])
          ? text.replace(/<[^>]*>/g, " ")
          : text;
      }
    }
    const nonIdempotent = req.retry === "non-idempotent";
    const mayHaveBeenApplied =
      nonIdempotent &&
      status >= 500 &&
      status !== 501 &&
      !(status === 503 && retryAfterMs !== undefined);
    const error = createApiError({
      status,
      code,
      serviceMessage,
      requestId,
      method: req.method,
      path: req.path,
      fieldErrors,
      body,
      mayHaveBeenApplied,
      retryAfterMs,
      ...(attempt > 1 ? { hint: hintAfterAttempts(attempt, mayHaveBeenApplied) } : {}),
    });
    return { kind: "status", error, status, retryAfterMs };
  }

  #parseSuccess(
    req: HttpRequest<unknown>,
    answer: RawAnswer,
    requestId: string | undefined,
  ): { data?: unknown; error?: ResponseValidationError; logView: unknown } {
    const base = {
      method: req.method,
      path: req.path,
      status: answer.status,
      requestId,
      applied: req.retry === "non-idempotent",
    };
    let json: unknown;
    if (answer.text.trim() !== "") {
      try {
        json = JSON.parse(answer.text);
      } catch {
        return {
          error: new ResponseValidationError({
            ...base,
            issues: [{ path: "$", message: "body is not JSON" }],
            detail: `body is not JSON (content-type ${answer.headers["content-type"] ?? "none"})`,
          }),
          logView: `[${answer.text.length} characters of non-JSON]`,
        };
      }
    }
    const logView = scrubDeep(redact(json), this.#secrets);
    const result = req.response.safeParse(json);
    if (result.success) return { data: result.data, logView };
    const issues: ResponseIssue[] = result.error.issues.map((issue) => ({
      path: jsonPath(issue.path),
      message: scrub(issue.message, this.#secrets),
    }));
    return { error: new ResponseValidationError({ ...base, issues }), logView };
  }

  /** Delay before the next attempt, or undefined when the failure must be thrown. */
  #retryDelay(
    policy: RetryPolicy,
    failure: AttemptFailure,
    attempt: number,
    maxAttempts: number,
  ): number | undefined {
    if (attempt >= maxAttempts || !isRetryable(policy, failure)) return undefined;
    if (failure.kind === "status" && failure.retryAfterMs !== undefined) {
      return failure.retryAfterMs <= this.#maxRetryAfterMs ? failure.retryAfterMs : undefined;
    }
    const ceiling = Math.min(this.#retryMaxDelayMs, this.#retryBaseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.#random() * ceiling);
  }

  async #wait(
    ms: number,
    signal: AbortSignal | undefined,
    method: string,
    path: string,
  ): Promise<void> {
    try {
      await this.#sleep(ms, signal);
    } catch (err) {
      if (signal?.aborted) throw new AbortedError(method, path, signal.reason);
      throw err;
    }
    if (signal?.aborted) throw new AbortedError(method, path, signal.reason);
  }

  #logAttempt(
    req: HttpRequest<unknown>,
    body: EncodedBody,
    attempt: number,
    maxAttempts: number,
    started: number,
    outcome: {
      status?: number;
      requestId?: string | undefined;
      response?: unknown;
      error?: string;
      retryInMs?: number;
    },
  ): void {
    const durationMs = Math.round(performance.now() - started);
    const result = outcome.status !== undefined ? String(outcome.status) : "error";
    const rid = outcome.requestId !== undefined ? ` request id ${outcome.requestId}` : "";
    const retry = outcome.retryInMs !== undefined ? `, retry in ${outcome.retryInMs} ms` : "";
    const message = `${req.method} ${req.path} -> ${result} in ${durationMs} ms (attempt ${attempt}/${maxAttempts}${retry})${rid}`;
    const fields: Record<string, unknown> = {
      method: req.method,
      path: req.path,
      status: outcome.status,
      durationMs,
      attempt,
      maxAttempts,
      requestId: outcome.requestId,
      request: body.logView,
      response: outcome.response,
      error: outcome.error,
      retryInMs: outcome.retryInMs,
    };
    for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
    try {
      this.#logger.debug(
        scrub(message, this.#secrets),
        scrubDeep(fields, this.#secrets) as Record<string, unknown>,
      );
    } catch {
      // A broken logger must not turn a successful call into a failure.
    }
  }
}

function hintAfterAttempts(attempts: number, mayHaveBeenApplied: boolean): string {
  const base = `gave up after ${attempts} attempts`;
  return mayHaveBeenApplied
    ? `${base}; the request may have been applied; check for the resource before trying again`
    : base;
}

/** Marks an abort caused by our own per-attempt timer (as opposed to the caller's signal). */
class TimedOut extends Error {
  constructor() {
    super("per-attempt timeout");
  }
}

function isRetryable(policy: RetryPolicy, failure: AttemptFailure): boolean {
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
