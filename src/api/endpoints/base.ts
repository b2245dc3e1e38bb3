/** What every area of the client shares: the transport, path segments, request validation. */
import type { z } from "zod";
import { RequestValidationError } from "../errors";
import type { HttpClient, RequestOptions, RetryPolicy } from "../http";
import { checkRequest, GenericResponseSchema } from "../schemas/common";

/**
 * A resource id in a path. Ids are integers on the wire, but Pulumi state keeps them as strings,
 * so both are accepted.
 */
export type Id = number | string;

/**
 * Base of the per-area classes: holds the shared {@link HttpClient}, and says each plain call in
 * one line (`this.read(path, Schema, options)`); calls with a query or a multipart body describe
 * their request to `http.request` themselves.
 */
export abstract class ApiArea {
  constructor(protected readonly http: HttpClient) {}

  /** `GET path`, its answer parsed with `response`. Reads change nothing: always retried. */
  protected read<T>(path: string, response: z.ZodType<T>, options?: RequestOptions): Promise<T> {
    return this.http.request({ method: "GET", path, response, retry: "idempotent" }, options);
  }

  /**
   * `POST path` with `body` (validated already, or `undefined` for none), its answer parsed with
   * `response`; `retry` says whether it may be sent again blindly.
   */
  protected post<T>(
    path: string,
    response: z.ZodType<T>,
    retry: RetryPolicy,
    body: unknown,
    options?: RequestOptions,
  ): Promise<T> {
    const request = { method: "POST" as const, path, response, retry };
    return this.http.request(body === undefined ? request : { ...request, body }, options);
  }

  /** `DELETE path`, answered with the generic response. Deleting again is harmless: retried. */
  protected remove(path: string, options?: RequestOptions) {
    return this.http.request(
      { method: "DELETE", path, response: GenericResponseSchema, retry: "idempotent" },
      options,
    );
  }
}

/**
 * Percent-encodes one path segment. An empty id is refused: `/v1/servers/` would silently
 * address the collection instead of one server.
 */
export function segment(id: Id, field = "id"): string {
  const text = String(id);
  if (text.trim() === "") {
    throw new RequestValidationError(`path parameter ${field}`, [
      { field, message: "must not be empty" },
    ]);
  }
  return encodeURIComponent(text);
}

/**
 * Validates a request body with its strict schema before anything is sent and returns what goes
 * on the wire (defaults applied).
 */
export function validBody<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const result = checkRequest(schema, input);
  if (!result.success) throw new RequestValidationError(what, result.fieldErrors);
  return result.data;
}
