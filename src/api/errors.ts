/**
 * The errors the API client throws. Everything is a {@link CloudInfraError}; answers from the
 * service are an {@link ApiError} subclass per status family; failures that never produced an
 * answer (connection, timeout, abort) and answers we could not understand have their own classes.
 *
 * Messages are one line and written for an operator: what was attempted, the status and code,
 * the service's explanation, the request id to quote to support, the fields at fault and, when it
 * helps, what to do next. They never contain the API key: the HTTP layer scrubs every text that
 * comes from the service before it reaches these constructors.
 */

import { type ErrorBody, ErrorBodySchema } from "./schemas/common";

/** One field-level complaint from the service (or from our own request validation). */
export interface FieldError {
  /** The request field at fault, in wire spelling (`user_defined_name`, `rules[0].dport`). */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/**
 * The one way an error class of this package gets its name: on the prototype, in a `static`
 * block (`static { nameErrorClass(X, "X"); }`), so that `err.name`, `String(err)` and the first
 * line of the stack say the class even after bundling or minification renames the constructors.
 */
export function nameErrorClass(cls: { prototype: Error }, name: string): void {
  Object.defineProperty(cls.prototype, "name", {
    value: name,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/**
 * Marks an error of this package whose class cannot extend {@link CloudInfraError} because it
 * must extend another (the manifest's `pulumi.RunError`): `instanceof CloudInfraError` is true for
 * it too. Shared across copies of the package loaded side by side.
 */
export const CLOUDINFRA_ERROR: unique symbol = Symbol.for("pulumi-cloudinfra.error") as never;

/** Base class of every error this package throws. `instanceof CloudInfraError` catches them all. */
export class CloudInfraError extends Error {
  static {
    nameErrorClass(CloudInfraError, "CloudInfraError");
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // The receiver is the class on the right of `instanceof`: a subclass keeps the plain test.
    // biome-ignore lint/complexity/noThisInStatic: the receiver is the class being tested
    // biome-ignore lint/complexity/noUselessThisAlias: named for what it is, the tested class
    const cls: object = this;
    if (Function.prototype[Symbol.hasInstance].call(cls, value)) return true;
    return (
      cls === CloudInfraError &&
      typeof value === "object" &&
      value !== null &&
      (value as { [CLOUDINFRA_ERROR]?: unknown })[CLOUDINFRA_ERROR] === true
    );
  }
}

/** What the HTTP layer knows about a failed answer; input of {@link createApiError}. */
export interface ApiErrorInit {
  /** The HTTP status of the answer. */
  status: number;
  /** `code` from the error body, when the body had one. */
  code?: string | undefined;
  /** `message` from the error body (already scrubbed of secrets), when the body had one. */
  serviceMessage?: string | undefined;
  /** The `x-request-id` response header. */
  requestId?: string | undefined;
  /** HTTP method of the request. */
  method: string;
  /** Request path without the query string. */
  path: string;
  /** `errors` from the error body. */
  fieldErrors?: FieldError[] | undefined;
  /** The parsed (and redacted) error body, or its text when it was not JSON. */
  body?: unknown;
  /** See {@link ApiError.mayHaveBeenApplied}. */
  mayHaveBeenApplied?: boolean | undefined;
  /** Milliseconds the service asked us to wait (`Retry-After`), for 429 and 503. */
  retryAfterMs?: number | undefined;
  /** Extra advice appended to the message (for example why a retry was not attempted). */
  hint?: string | undefined;
  /** See {@link ApiError.serviceClockAheadMs}. */
  serviceClockAheadMs?: number | undefined;
}

const MAX_SERVICE_TEXT = 300;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_SERVICE_TEXT ? `${flat.slice(0, MAX_SERVICE_TEXT)}…` : flat;
}

function defaultHint(status: number, mayHaveBeenApplied: boolean): string | undefined {
  if (mayHaveBeenApplied) {
    return "the request may have been applied; check for the resource before trying again";
  }
  switch (status) {
    case 401:
      return "check the API key (cloudinfra:apiKey or CLOUDINFRA_API_KEY)";
    case 403:
      return "the API key's role lacks the permission this call needs";
    default:
      return undefined;
  }
}

/** What failed, the status, code, service message and details: the message before any advice. */
function formatApiSummary(init: ApiErrorInit, code: string): string {
  let text = `${init.method} ${init.path} failed: ${init.status} ${code}`;
  const complaints = (init.fieldErrors ?? []).map((fe) => `${fe.field}: ${oneLine(fe.message)}`);
  const service = withoutComplaints(oneLine(init.serviceMessage ?? ""), complaints);
  if (service !== "") text += `: ${service}`;
  const details: string[] = [];
  if (init.requestId !== undefined) details.push(`request id ${init.requestId}`);
  for (const complaint of complaints) details.push(`field ${complaint}`);
  if (init.retryAfterMs !== undefined) {
    details.push(`retry after ${Math.ceil(init.retryAfterMs / 1000)}s`);
  }
  if (details.length > 0) text += ` (${details.join("; ")})`;
  return text;
}

/**
 * Each complaint said once: a service message that ends by summing the field errors up
 * (`Invalid request (plan_id: no plan 99; and 2 more)`, as the emulator writes it) keeps only its
 * head, since every field follows as a detail.
 */
function withoutComplaints(service: string, complaints: readonly string[]): string {
  const open = service.indexOf(" (");
  if (complaints.length === 0 || open < 0 || !service.endsWith(")")) return service;
  const summed = service.slice(open + 2, -1).replace(/; and \d+ more$/, "");
  return summed === complaints.slice(0, 3).join("; ") ? service.slice(0, open) : service;
}

function formatApiMessage(init: ApiErrorInit, code: string): string {
  const hint = init.hint ?? defaultHint(init.status, init.mayHaveBeenApplied === true);
  const summary = formatApiSummary(init, code);
  return hint === undefined ? summary : `${summary}; ${hint}`;
}

/** The service answered with a non-2xx status. Subclasses narrow the status family. */
export class ApiError extends CloudInfraError {
  static {
    nameErrorClass(ApiError, "ApiError");
  }
  /** HTTP status of the answer. */
  readonly status: number;
  /** `code` from the error body, else derived from the status (`http_502`). */
  readonly code: string;
  /** The `x-request-id` response header: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path, without the query string. */
  readonly path: string;
  /** Field-level complaints from the body's `errors` array (empty when there were none). */
  readonly fieldErrors: FieldError[];
  /** The error body as received (JSON parsed and redacted, or text), for diagnostics. */
  readonly body: unknown;
  /**
   * True when a non-idempotent request (create, management action, payment) failed in a way
   * that does not prove the service did nothing (500, 502, 504, 503 without Retry-After).
   * Callers should look for the resource before creating it again. Always false for idempotent
   * requests: repeating those is safe, so there is nothing to reconcile.
   */
  readonly mayHaveBeenApplied: boolean;
  /**
   * The message without its advice (such as "the request may have been applied; check for the
   * resource"), for a caller that acted on the advice and says what it found instead.
   */
  readonly summary: string;
  /**
   * How far the service's clock was ahead of this machine's (ms; negative when behind), from the
   * answer's `Date` header against this machine's clock when the answer arrived; `undefined`
   * without the header. The header is cut to the second and written before the answer travels,
   * so this is never more than the real offset, and less by up to a second plus the travel time.
   */
  readonly serviceClockAheadMs: number | undefined;

  constructor(init: ApiErrorInit) {
    const code = init.code !== undefined && init.code !== "" ? init.code : `http_${init.status}`;
    super(formatApiMessage(init, code));
    this.summary = formatApiSummary(init, code);
    this.status = init.status;
    this.code = code;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.fieldErrors = init.fieldErrors ?? [];
    this.body = init.body;
    this.mayHaveBeenApplied = init.mayHaveBeenApplied ?? false;
    this.serviceClockAheadMs = init.serviceClockAheadMs;
  }
}

/** 400 or 422: the service rejected the request's content; see {@link ApiError.fieldErrors}. */
export class ValidationError extends ApiError {
  static {
    nameErrorClass(ValidationError, "ValidationError");
  }
}

/** 413: the request body is too large (ticket attachments are limited to 2 MB in total). */
export class PayloadTooLargeError extends ValidationError {
  static {
    nameErrorClass(PayloadTooLargeError, "PayloadTooLargeError");
  }
}

/** 415: the service does not accept the request's content type. */
export class UnsupportedMediaTypeError extends ValidationError {
  static {
    nameErrorClass(UnsupportedMediaTypeError, "UnsupportedMediaTypeError");
  }
}

/** 401: the API key is missing, unknown or revoked. */
export class UnauthorizedError extends ApiError {
  static {
    nameErrorClass(UnauthorizedError, "UnauthorizedError");
  }
}

/** 403: the key is valid but its role lacks the permission (or the endpoint was plain HTTP). */
export class ForbiddenError extends ApiError {
  static {
    nameErrorClass(ForbiddenError, "ForbiddenError");
  }
}

/** 404: the resource does not exist (or no longer does). */
export class NotFoundError extends ApiError {
  static {
    nameErrorClass(NotFoundError, "NotFoundError");
  }
}

/** 409: duplicate name, an action that does not fit the current status, or a system role. */
export class ConflictError extends ApiError {
  static {
    nameErrorClass(ConflictError, "ConflictError");
  }

  /**
   * The id of the object that holds what must be unique (a name, a key), when the service names
   * it (`existing_id` in the error body, wire-contract.md); `undefined` otherwise.
   */
  get existingId(): number | undefined {
    return holderField(this.body, "existing_id");
  }

  /**
   * When the holder named by {@link existingId} was made, on this machine's clock (ms since the
   * epoch): the service's `existing_created_at` moved by {@link ApiError.serviceClockAheadMs}, so
   * that the two machines' clocks need not agree. Since that offset is never overestimated, an
   * object made after a moment of this machine is never dated before it (it may be dated up to a
   * second and the answer's travel time late). `undefined` unless the answer carried both the
   * creation time and a `Date` header.
   */
  get existingCreatedAtHere(): number | undefined {
    const at = holderField(this.body, "existing_created_at");
    if (at === undefined || this.serviceClockAheadMs === undefined) return undefined;
    return Date.parse(at) - this.serviceClockAheadMs;
  }
}

/** One holder field of a 409 body, read with its schema on its own: a bad one hides no other. */
function holderField<K extends "existing_id" | "existing_created_at">(
  body: unknown,
  key: K,
): ErrorBody[K] | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const parsed = ErrorBodySchema.shape[key].safeParse((body as Record<string, unknown>)[key]);
  return parsed.success ? (parsed.data as ErrorBody[K]) : undefined;
}

/** 429: rate limited, and retries were exhausted or the requested wait was too long. */
export class RateLimitedError extends ApiError {
  static {
    nameErrorClass(RateLimitedError, "RateLimitedError");
  }
  /** How long the service asked us to wait (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 5xx: the service failed. Check {@link ApiError.mayHaveBeenApplied} before repeating a create. */
export class ServerError extends ApiError {
  static {
    nameErrorClass(ServerError, "ServerError");
  }
}

/** Builds the {@link ApiError} subclass that matches the status. */
export function createApiError(init: ApiErrorInit): ApiError {
  const s = init.status;
  if (s === 400 || s === 422) return new ValidationError(init);
  if (s === 413) return new PayloadTooLargeError(init);
  if (s === 415) return new UnsupportedMediaTypeError(init);
  if (s === 401) return new UnauthorizedError(init);
  if (s === 403) return new ForbiddenError(init);
  if (s === 404) return new NotFoundError(init);
  if (s === 409) return new ConflictError(init);
  if (s === 429) return new RateLimitedError(init);
  if (s >= 500 && s <= 599) return new ServerError(init);
  return new ApiError(init);
}

/** Input of {@link ConnectionError}. */
export interface ConnectionErrorInit {
  /** HTTP method of the request. */
  method: string;
  /** Request path without the query string. */
  path: string;
  /** The system or undici error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`...). */
  causeCode: string | undefined;
  /** Whether any part of the request may have reached the service. */
  requestSent: boolean;
  /** See {@link ConnectionError.mayHaveBeenApplied}. */
  mayHaveBeenApplied: boolean;
  /** The underlying error (its message is scrubbed; it is kept as `cause`). */
  cause?: unknown;
  /** What went wrong, in words (already scrubbed). */
  detail?: string | undefined;
  /** Extra advice appended to the message. */
  hint?: string | undefined;
}

/** No usable answer because the connection failed (refused, reset, DNS, TLS, socket closed). */
export class ConnectionError extends CloudInfraError {
  static {
    nameErrorClass(ConnectionError, "ConnectionError");
  }
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path, without the query string. */
  readonly path: string;
  /** The system or undici error code, when there was one (`ECONNREFUSED`, `ECONNRESET`). */
  readonly causeCode: string | undefined;
  /**
   * False only when the failure happened while connecting (refused, DNS, unreachable, TLS
   * handshake, connect timeout), which proves no byte of the request reached the service.
   */
  readonly requestSent: boolean;
  /**
   * True when a non-idempotent request may have been applied (the connection broke after the
   * request was sent). Always false for idempotent requests.
   */
  readonly mayHaveBeenApplied: boolean;
  /** The message without its advice; see {@link ApiError.summary}. */
  readonly summary: string;

  constructor(init: ConnectionErrorInit) {
    const what = init.detail ?? "connection failed";
    const code = init.causeCode !== undefined ? ` (${init.causeCode})` : "";
    const summary = `${init.method} ${init.path} failed: ${what}${code}`;
    let text = summary;
    if (init.hint !== undefined) text += `; ${init.hint}`;
    else if (init.mayHaveBeenApplied) {
      text += "; the request may have been applied; check for the resource before trying again";
    }
    super(text, init.cause === undefined ? undefined : { cause: init.cause });
    this.summary = summary;
    this.method = init.method;
    this.path = init.path;
    this.causeCode = init.causeCode;
    this.requestSent = init.requestSent;
    this.mayHaveBeenApplied = init.mayHaveBeenApplied;
  }
}

/** Input of {@link TimeoutError}. */
export interface TimeoutErrorInit {
  /** HTTP method of the request. */
  method: string;
  /** Request path without the query string. */
  path: string;
  /** The per-attempt timeout that expired. */
  timeoutMs: number;
  /** See {@link TimeoutError.mayHaveBeenApplied}. */
  mayHaveBeenApplied: boolean;
  /** How many attempts were made in total. */
  attempts?: number | undefined;
}

/** An attempt got no complete answer within the per-attempt timeout. */
export class TimeoutError extends CloudInfraError {
  static {
    nameErrorClass(TimeoutError, "TimeoutError");
  }
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path, without the query string. */
  readonly path: string;
  /** The per-attempt timeout that expired, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * True when a non-idempotent request timed out: the service may still have acted on it.
   * Always false for idempotent requests.
   */
  readonly mayHaveBeenApplied: boolean;
  /** The message without its advice; see {@link ApiError.summary}. */
  readonly summary: string;

  constructor(init: TimeoutErrorInit) {
    const attempts =
      init.attempts !== undefined && init.attempts > 1 ? ` (${init.attempts} attempts)` : "";
    const summary = `${init.method} ${init.path} failed: no answer within ${init.timeoutMs} ms${attempts}`;
    let text = summary;
    text += init.mayHaveBeenApplied
      ? "; the request may have been applied; check for the resource before trying again"
      : "; raise the timeout (timeoutMs) if the service is slow";
    super(text);
    this.summary = summary;
    this.method = init.method;
    this.path = init.path;
    this.timeoutMs = init.timeoutMs;
    this.mayHaveBeenApplied = init.mayHaveBeenApplied;
  }
}

/** The caller's AbortSignal fired; the request (or the wait before a retry) was abandoned. */
export class AbortedError extends CloudInfraError {
  static {
    nameErrorClass(AbortedError, "AbortedError");
  }
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path, without the query string. */
  readonly path: string;
  /**
   * True when a non-idempotent request was abandoned while in flight: the service may still act
   * on it. Deliberately not counted by {@link isAmbiguousFailure}: the caller asked to stop, so
   * no recovery (lookup, resend) should run on its behalf.
   */
  readonly mayHaveBeenApplied: boolean;

  constructor(method: string, path: string, cause?: unknown, mayHaveBeenApplied = false) {
    const note = mayHaveBeenApplied ? "; the request may have been applied" : "";
    // A reason of this package's own says why (an operation's time limit); others add nothing.
    const why = cause instanceof CloudInfraError ? `: ${cause.message}` : "";
    super(
      `${method} ${path} aborted by the caller${why}${note}`,
      cause === undefined ? undefined : { cause },
    );
    this.method = method;
    this.path = path;
    this.mayHaveBeenApplied = mayHaveBeenApplied;
  }
}

/** One place where an answer did not match the expected schema. */
export interface ResponseIssue {
  /** JSON path into the answer, `$` being the root (`$.servers[0].id`). */
  path: string;
  /** What was expected there. */
  message: string;
}

/** Input of {@link ResponseValidationError}. */
export interface ResponseValidationErrorInit {
  /** HTTP method of the request. */
  method: string;
  /** Request path without the query string. */
  path: string;
  /** HTTP status of the answer. */
  status: number;
  /** The `x-request-id` response header. */
  requestId: string | undefined;
  /** Every mismatch found. */
  issues: ResponseIssue[];
  /** Why the body could not be read at all (not JSON), when that was the problem. */
  detail?: string | undefined;
  /**
   * The request was non-idempotent and the service answered 2xx: it acted, so repeating the
   * request would do it twice. Said in the message.
   */
  applied?: boolean | undefined;
}

const MAX_ISSUES_IN_MESSAGE = 5;

/**
 * A 2xx answer did not match the schema this client expects: the service and the client
 * disagree about the wire contract. Report it with the request id.
 */
export class ResponseValidationError extends CloudInfraError {
  static {
    nameErrorClass(ResponseValidationError, "ResponseValidationError");
  }
  /** HTTP method of the request. */
  readonly method: string;
  /** Request path, without the query string. */
  readonly path: string;
  /** HTTP status of the answer. */
  readonly status: number;
  /** The `x-request-id` response header. */
  readonly requestId: string | undefined;
  /** Every mismatch, with the JSON path where it was found. */
  readonly issues: ResponseIssue[];

  constructor(init: ResponseValidationErrorInit) {
    const shown = init.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
    if (init.issues.length > MAX_ISSUES_IN_MESSAGE) {
      shown.push(`and ${init.issues.length - MAX_ISSUES_IN_MESSAGE} more`);
    }
    const what = init.detail ?? shown.join("; ");
    const rid = init.requestId !== undefined ? `, request id ${init.requestId}` : "";
    const applied =
      init.applied === true ? "; the service did apply the request, do not repeat it" : "";
    super(
      `${init.method} ${init.path} returned ${init.status} with an unexpected body${rid}: ${what}${applied}`,
    );
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.requestId = init.requestId;
    this.issues = init.issues;
  }
}

/**
 * A request body failed our strict schema before anything was sent. The message names each
 * field and what is allowed.
 */
export class RequestValidationError extends CloudInfraError {
  static {
    nameErrorClass(RequestValidationError, "RequestValidationError");
  }
  /** Every field at fault. */
  readonly fieldErrors: FieldError[];

  /**
   * @param what what was being built, e.g. `CreateServerRequest` or `POST /v1/servers`
   * @param fieldErrors the fields at fault
   */
  constructor(what: string, fieldErrors: FieldError[]) {
    const list = fieldErrors.map((f) => `${f.field}: ${f.message}`).join("; ");
    super(`invalid ${what}: ${list === "" ? "the request does not match its schema" : list}`);
    this.fieldErrors = fieldErrors;
  }
}

/** The endpoint is not `https://`; thrown at construction, before any request is made. */
export class InsecureEndpointError extends CloudInfraError {
  static {
    nameErrorClass(InsecureEndpointError, "InsecureEndpointError");
  }
}

/** The client's options are unusable (for example a CA file that cannot be read). */
export class ConfigurationError extends CloudInfraError {
  static {
    nameErrorClass(ConfigurationError, "ConfigurationError");
  }
}

/**
 * True when a non-idempotent request failed in a way that does not prove the service did
 * nothing: the caller should look for the resource before creating it again.
 */
export function isAmbiguousFailure(
  err: unknown,
): err is (ApiError | ConnectionError | TimeoutError) & { mayHaveBeenApplied: true } {
  return (
    (err instanceof ApiError || err instanceof ConnectionError || err instanceof TimeoutError) &&
    err.mayHaveBeenApplied
  );
}
