/** What every area of the client shares: the transport, path segments, request validation. */
import type { z } from "zod";
import { RequestValidationError } from "../errors";
import type { HttpClient } from "../http";
import { checkRequest } from "../schemas/common";

/**
 * A resource id in a path. Ids are integers on the wire, but Pulumi state keeps them as strings,
 * so both are accepted.
 */
export type Id = number | string;

/** Base of the per-area classes: holds the shared {@link HttpClient}. */
export abstract class ApiArea {
  constructor(protected readonly http: HttpClient) {}
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
