/**
 * Errors a route handler throws to answer a non-2xx status. The server turns them into the
 * project's error body: `{"success": false, "message", "code", "errors"?}` (design.md).
 */
import type { ErrorCode, FieldError } from "../../api/schemas/common";

export type { ErrorCode, FieldError };

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** On a 409 for a value that must be unique: the object that holds it (its id, when it was made). */
  readonly holder: Holder | undefined;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; holder?: Holder } = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.holder = options.holder;
  }

  toBody(): ErrorBodyOut {
    const body: ErrorBodyOut = { success: false, message: this.message, code: this.code };
    if (this.errors !== undefined) body.errors = this.errors;
    if (this.holder !== undefined) {
      body.existing_id = this.holder.id;
      body.existing_created_at = this.holder.created_at;
    }
    return body;
  }
}

export interface ErrorBodyOut {
  success: false;
  message: string;
  code: ErrorCode;
  errors?: FieldError[];
  existing_id?: number;
  existing_created_at?: string;
}

/** The record that holds a value that must be unique, as a 409 names it (wire-contract.md). */
export interface Holder {
  id: number;
  /** When it was made, by the emulator's clock (RFC 3339). */
  created_at: string;
}

/** 400 invalid_request, optionally naming the fields at fault. */
export function invalidRequest(message: string, errors?: FieldError[]): HttpError {
  return new HttpError(400, "invalid_request", message, errors === undefined ? {} : { errors });
}

/**
 * 400 naming every field at fault; the message sums up the first few as `field: message`, so a
 * person reading only the message still sees what to fix: `Invalid request body (text: is
 * required; colour: unknown field)`.
 */
export function invalidFields(errors: readonly FieldError[], what = "Invalid request"): HttpError {
  const summary = errors
    .slice(0, 3)
    .map((e) => `${e.field}: ${e.message}`)
    .join("; ");
  const more = errors.length > 3 ? `; and ${errors.length - 3} more` : "";
  return invalidRequest(`${what} (${summary}${more})`, [...errors]);
}

/** 400 for one field: `fieldError("plan_id", "no such plan")`. */
export function fieldError(field: string, message: string): HttpError {
  return invalidFields([{ field, message }]);
}

/** 404 not_found. Use it for ids that belong to another account too. */
export function notFound(what: string, id?: string | number): HttpError {
  return new HttpError(
    404,
    "not_found",
    id === undefined ? `${what} not found` : `${what} ${id} not found`,
  );
}

/**
 * 409 conflict: duplicate name, wrong state for an action, system role. For a value that must be
 * unique, `holder` is the record that holds it: the answer names its id and creation time.
 */
export function conflict(message: string, holder?: Holder): HttpError {
  return new HttpError(409, "conflict", message, holder === undefined ? {} : { holder });
}

export function forbidden(message: string): HttpError {
  return new HttpError(403, "forbidden", message);
}

export function payloadTooLarge(message: string): HttpError {
  return new HttpError(413, "payload_too_large", message);
}

/**
 * The record with this id from an account's table, or 404. Because the table belongs to the
 * caller's account, an id owned by another account is "not found" as well.
 */
export function findOr404<T, K extends number | string>(
  table: { get(id: K): T | undefined },
  id: K,
  what: string,
): T {
  const found = table.get(id);
  if (found === undefined) throw notFound(what, id);
  return found;
}
