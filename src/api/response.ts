/**
 * Reading an answer: a 2xx body parsed by the request's schema, or anything else turned into
 * the {@link ApiError} of its status. Every text that came from the service is scrubbed of the
 * API key before it reaches an error or the log.
 */
import type { z } from "zod";
import {
  createApiError,
  type FieldError,
  type ResponseIssue,
  ResponseValidationError,
} from "./errors";
import { bodyShape } from "./log";
import { redact, scrub, scrubDeep } from "./redact";
import {
  type RequestSummary,
  retryAfterOf,
  type StatusFailure,
  statusMayHaveBeenApplied,
} from "./retry";

/** An answer as read off the wire, before any parsing. */
export interface RawAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  text: string;
}

/** A 2xx answer's outcome, and what the debug log shows of its body (its shape, see log.ts). */
export type ParsedSuccess<T> =
  | { ok: true; data: T; logShape: unknown }
  | { ok: false; error: ResponseValidationError; logShape: unknown };

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

/** `errors` of an error body, keeping what is usable of malformed entries. */
function errorBodyFieldErrors(value: unknown): FieldError[] {
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
}

function stringProp(obj: unknown, key: string): string | undefined {
  if (typeof obj !== "object" || obj === null) return undefined;
  const value = (obj as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

function isHtml(text: string, contentType: string | undefined): boolean {
  return (contentType ?? "").includes("html") || /^\s*<(!doctype|html)/i.test(text);
}

function hintAfterAttempts(attempts: number, mayHaveBeenApplied: boolean): string {
  const base = `gave up after ${attempts} attempts`;
  return mayHaveBeenApplied
    ? `${base}; the request may have been applied; check for the resource before trying again`
    : base;
}

/**
 * How far the service's clock is ahead of ours (ms, negative when behind): its `Date` header
 * against `receivedAt`, our clock when the answer arrived; `undefined` without a readable header.
 */
function serviceClockAhead(
  headers: Record<string, string>,
  receivedAt: number,
): number | undefined {
  const date = headers["date"];
  const serviceAt = date === undefined ? Number.NaN : Date.parse(date);
  return Number.isNaN(serviceAt) ? undefined : serviceAt - receivedAt;
}

/** The error of a non-2xx answer, with what the retry rule needs to judge it. */
export function failureFromStatus(
  req: RequestSummary,
  answer: RawAnswer,
  requestId: string | undefined,
  attempt: number,
  secrets: readonly string[],
  now: number,
): StatusFailure {
  const status = answer.status;
  const retryAfterMs = retryAfterOf(status, answer.headers, now);
  const text = scrub(answer.text, secrets);
  let body: unknown = text === "" ? undefined : text;
  let code: string | undefined;
  let serviceMessage: string | undefined;
  let fieldErrors: FieldError[] = [];
  try {
    const json: unknown = JSON.parse(text);
    body = redact(json);
    code = stringProp(json, "code");
    serviceMessage = stringProp(json, "message");
    fieldErrors = errorBodyFieldErrors((json as { errors?: unknown } | null)?.errors);
  } catch {
    if (text.trim() !== "") {
      serviceMessage = isHtml(text, answer.headers["content-type"])
        ? text.replace(/<[^>]*>/g, " ")
        : text;
    }
  }
  const mayHaveBeenApplied = statusMayHaveBeenApplied(req.retry, status, retryAfterMs);
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
    serviceClockAheadMs: serviceClockAhead(answer.headers, now),
    ...(attempt > 1 ? { hint: hintAfterAttempts(attempt, mayHaveBeenApplied) } : {}),
  });
  return { kind: "status", error, status, retryAfterMs };
}

/**
 * The body of a 2xx answer parsed by `schema`. A body that is not JSON or does not match is a
 * {@link ResponseValidationError}, flagged as applied for non-idempotent requests: the service
 * said yes, we just cannot read what it made.
 */
export function parseSuccess<T>(
  req: RequestSummary,
  schema: z.ZodType<T>,
  answer: RawAnswer,
  requestId: string | undefined,
  secrets: readonly string[],
): ParsedSuccess<T> {
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
        ok: false,
        error: new ResponseValidationError({
          ...base,
          issues: [{ path: "$", message: "body is not JSON" }],
          detail: `body is not JSON (content-type ${answer.headers["content-type"] ?? "none"})`,
        }),
        logShape: `${answer.text.length} characters of non-JSON`,
      };
    }
  }
  const logShape = scrubDeep(bodyShape(json), secrets);
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, data: result.data, logShape };
  const issues: ResponseIssue[] = result.error.issues.map((issue) => ({
    path: jsonPath(issue.path),
    message: scrub(issue.message, secrets),
  }));
  return { ok: false, error: new ResponseValidationError({ ...base, issues }), logShape };
}
