/*
 * The one place for HTTP policy: TLS, authentication, timeouts, retries, error mapping, logging.
 * This module runs the request loop; the rules it applies live next to it, one job each:
 * which failures are retried and after how long (retry.ts, with the full rule at its top),
 * what a transport failure means (transport-errors.ts), how an answer is read (response.ts),
 * body encoding (request-body.ts) and the client's settings (http-options.ts).
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { createSecureContext } from "node:tls";
import { Agent, request as undiciRequest } from "undici";
import type { z } from "zod";
import { AbortedError, RequestValidationError, type ResponseValidationError } from "./errors";
import {
  checkClientOptions,
  checkRequestOptions,
  DEFAULTS,
  type HttpClientOptions,
  parseEndpoint,
  type RequestOptions,
  trustedCas,
} from "./http-options";
import { type Logger, loggerFromEnv } from "./log";
import { type BudgetTicket, RateBudget } from "./rate-budget";
import { scrub, scrubDeep } from "./redact";
import { type EncodedBody, encodeBody, type MultipartBody } from "./request-body";
import { failureFromStatus, parseSuccess, type RawAnswer } from "./response";
import { type BackoffSettings, type RetryPolicy, rateLimitWait, retryDelay } from "./retry";
import { failureFromThrown, TimedOut } from "./transport-errors";
import { PACKAGE_VERSION } from "./version";

// What moved out of this module stays importable from it.
export type { HttpClientOptions, RequestOptions } from "./http-options";
export type { MultipartBody, MultipartFile } from "./request-body";
export { parseRetryAfter, type RetryPolicy } from "./retry";

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

/**
 * The signal of the operation a request is made for (a provider's create cut short by its time
 * limit or by Cancel), which no request passes by hand: every call the operation makes, at any
 * depth, sees it. It ends at once the client's waits to retry (back-off sleeps, a 429's wait for
 * the rate budget) and a request in flight: a stopped operation neither sleeps on nor waits for
 * an answer. A write stopped in flight (any method but GET) may have been applied: its
 * {@link AbortedError} says so (`mayHaveBeenApplied`), for create recovery to keep the create
 * open for the next run. A first attempt sent after the operation ended still runs, bounded by
 * its own `timeoutMs`: the caller's own waits (a server's status) keep their deadlines and their
 * messages.
 */
const operationSignal = new AsyncLocalStorage<AbortSignal | undefined>();

/**
 * Runs `work` with `signal` as the operation signal of every request it makes (see above);
 * `undefined` runs it outside any operation (work shared by several, such as a server poll).
 */
export function withOperationSignal<T>(
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  return operationSignal.run(signal, work);
}

/** The caller's signal and the operation's, as one; either may be missing. */
function eitherSignal(
  own: AbortSignal | undefined,
  operation: AbortSignal | undefined,
): AbortSignal | undefined {
  if (operation === undefined) return own;
  return own === undefined ? operation : AbortSignal.any([own, operation]);
}

// Undici's own connect timeout; ours (timeoutMs) still bounds the whole attempt.
const CONNECT_TIMEOUT_MS = 10_000;

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
  readonly #backoff: BackoffSettings;
  readonly #logger: Logger;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #rateLimitWaitMs: number;
  readonly #budget: RateBudget;
  readonly #writeListeners = new Set<() => void>();

  constructor(options: HttpClientOptions) {
    const { origin, basePath } = parseEndpoint(options.endpoint);
    checkClientOptions(options);
    this.#origin = origin;
    this.#basePath = basePath;
    this.#secrets = [options.apiKey];
    this.#authorization = `ApiKey ${options.apiKey}`;
    const ua = `pulumi-cloudinfra/${PACKAGE_VERSION} node/${process.version}`;
    this.#userAgent = options.userAgent ? `${ua} ${options.userAgent}` : ua;
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
    this.#backoff = {
      baseDelayMs: options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
      maxDelayMs: options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
      random: options.random ?? Math.random,
    };
    this.#logger = options.logger ?? loggerFromEnv();
    this.#sleep = options.sleep ?? defaultSleep;
    this.#now = options.now ?? Date.now;
    this.#rateLimitWaitMs = options.rateLimitWaitMs ?? DEFAULTS.rateLimitWaitMs;
    this.#budget = new RateBudget({ now: this.#now, sleep: this.#sleep });

    const ca = trustedCas(options.caCert);
    this.#agent = new Agent({
      // One secure context for every connection: built per connection from `ca`, each of the
      // first burst of parallel requests would parse the ~150 roots of the trust store again.
      connect: ca === undefined ? {} : { secureContext: createSecureContext({ ca }) },
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

  /**
   * Calls `listener` each time a write (a request with any method but GET) finishes through this
   * client, however it ended: a cache of answers read before a write settled may miss what it
   * changed. Returns the function that stops the calls.
   */
  onWriteSettled(listener: () => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /** Like {@link HttpClient.request}, with the status, headers and request id. */
  async requestWithResponse<T>(
    req: HttpRequest<T>,
    options: RequestOptions = {},
  ): Promise<HttpResponse<T>> {
    if (req.method === "GET") return this.#requestWithResponse(req, options);
    try {
      return await this.#requestWithResponse(req, options);
    } finally {
      for (const listener of this.#writeListeners) listener();
    }
  }

  async #requestWithResponse<T>(
    req: HttpRequest<T>,
    options: RequestOptions,
  ): Promise<HttpResponse<T>> {
    checkRequestOptions(options);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    const maxRetries = options.maxRetries ?? this.#maxRetries;
    const signal = options.signal;
    const method = req.method;
    const path = req.path;
    const maxAttempts = maxRetries + 1;

    if (signal?.aborted) throw new AbortedError(method, path, signal.reason);
    // What ends a wait to retry: the caller's signal or the operation's (withOperationSignal).
    const operation = operationSignal.getStore();
    const retryWaits = eitherSignal(signal, operation);
    const url = this.#url(req);
    const body = encodeBody(req);
    const priority = options.priority ?? (method === "GET" ? "read" : "write");
    const deadlineAt = options.deadlineAt ?? this.#now() + this.#rateLimitWaitMs;

    // `attempt` counts failures that may be retried; a 429 is waited out without counting.
    let refusals = 0;
    for (let attempt = 1; ; attempt++) {
      let ticket: BudgetTicket;
      const waits = attempt > 1 || refusals > 0 ? retryWaits : signal;
      try {
        ticket = await this.#budget.take(priority, waits);
      } catch {
        throw new AbortedError(method, path, waits?.reason);
      }
      const started = performance.now();
      // An operation that ended before this attempt lets it go (see operationSignal).
      const stops = operation?.aborted === false ? operation : undefined;
      let answer: RawAnswer;
      try {
        answer = await this.#send(req, url, body, timeoutMs, eitherSignal(signal, stops));
      } catch (err) {
        this.#budget.failed(ticket);
        // The caller's abort wins over everything: they no longer want an answer or a retry.
        if (signal?.aborted) {
          throw new AbortedError(method, path, signal.reason, req.retry === "non-idempotent");
        }
        // The operation ended with the request in flight: a write may have been applied.
        if (stops?.aborted) throw new AbortedError(method, path, stops.reason, method !== "GET");
        const failure = failureFromThrown(err, req, timeoutMs, attempt, this.#secrets);
        const delay = retryDelay(req.retry, failure, attempt, maxAttempts, this.#backoff);
        this.#logAttempt(req, body, attempt, maxAttempts, started, {
          error: failure.error.message,
          ...(delay !== undefined ? { retryInMs: delay } : {}),
        });
        if (delay === undefined) throw failure.error;
        await this.#wait(delay, retryWaits, method, path);
        continue;
      }

      const requestId = answer.headers["x-request-id"];
      if (answer.status >= 200 && answer.status < 300) {
        this.#budget.answered(ticket, answer.headers);
        const parsed = parseSuccess(req, req.response, answer, requestId, this.#secrets);
        this.#logAttempt(req, body, attempt, maxAttempts, started, {
          status: answer.status,
          requestId,
          response: parsed.logShape,
        });
        if (!parsed.ok) throw parsed.error;
        return {
          data: parsed.data,
          status: answer.status,
          headers: answer.headers,
          requestId,
        };
      }

      const failure = failureFromStatus(
        req,
        answer,
        requestId,
        attempt,
        this.#secrets,
        this.#now(),
      );
      if (answer.status === 429 && maxRetries > 0) {
        // Everyone waits, this request is sent again once the budget allows (rate-budget.ts).
        refusals++;
        const wait = rateLimitWait(failure, deadlineAt - this.#now(), refusals, this.#backoff);
        this.#budget.answered(ticket, answer.headers, wait);
        this.#logAttempt(req, body, attempt, maxAttempts, started, {
          status: answer.status,
          requestId,
          response: { code: failure.error.code },
          ...(wait !== undefined ? { retryInMs: wait } : {}),
        });
        if (wait === undefined) throw failure.error;
        attempt--;
        continue;
      }
      this.#budget.answered(ticket, answer.headers);
      const delay = retryDelay(req.retry, failure, attempt, maxAttempts, this.#backoff);
      this.#logAttempt(req, body, attempt, maxAttempts, started, {
        status: answer.status,
        requestId,
        // The code and the fields at fault; the service's text can echo what was sent.
        response: {
          code: failure.error.code,
          ...(failure.error.fieldErrors.length > 0
            ? { fields: failure.error.fieldErrors.map((f) => f.field) }
            : {}),
        },
        ...(delay !== undefined ? { retryInMs: delay } : {}),
      });
      if (delay === undefined) throw failure.error;
      await this.#wait(delay, retryWaits, method, path);
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
      request: body.logShape,
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
