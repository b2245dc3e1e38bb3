/**
 * Building blocks shared by every area of the wire contract, and the two rules that all schemas
 * follow (see docs/wire-contract.md):
 *
 * - **Responses are lenient.** They are plain `z.object`s, which in zod v4 *strip* keys they do
 *   not know: a field the service adds later never breaks a user, and the inferred types stay
 *   exact (no `[key: string]: unknown` index signature that would hide typos in user code).
 *   Fields the spec does not promise are optional, fields a real service may send as `null` are
 *   nullable, and nested lists accept `null`/absence and come out as `[]`.
 * - **Requests are strict.** They are `z.strictObject`s with precise value rules, so a typo or a
 *   bad value is reported per field before anything is sent. The emulator validates incoming
 *   bodies with the very same schemas.
 */
import { z } from "zod";
import { forEachJsonValue } from "../../lib/json-bounds";
import { controlCharacterIn, invisibleCharacterIn } from "../../lib/text";

/**
 * Error message for a value of the wrong type: "is required" when it is missing, else
 * `expected <what>`. Schema-level messages win over {@link checkRequest}'s wording, so every
 * request field with its own message uses this to keep "is required" for absent fields.
 */
export function expected(what: string) {
  return (issue: { input?: unknown }): string =>
    issue.input === undefined ? "is required" : `expected ${what}`;
}

/** RFC 3339 timestamp in UTC (`2024-05-01T12:00:00Z`); fractional seconds and offsets are accepted. */
export const TimestampSchema = z.iso
  .datetime({ offset: true, error: "expected an RFC 3339 timestamp" })
  .describe("RFC 3339 / ISO 8601 timestamp, UTC, for example 2024-05-01T12:00:00Z");

/**
 * A calendar date or a full timestamp. Used for invoice period fields, which the spec describes
 * only as "Period start" and the like; the emulator sends full timestamps.
 */
export const DateOrTimestampSchema = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: "expected an RFC 3339 timestamp or a YYYY-MM-DD date",
  })
  .describe("RFC 3339 timestamp (or a YYYY-MM-DD date)");

/** Decimal string with exactly two places, for example `"12.50"` or `"-3.00"`. */
export const MoneySchema = z
  .string()
  .regex(/^-?\d+\.\d{2}$/, { error: "expected a decimal string with two places, like 12.50" })
  .describe("Decimal amount as a string with exactly two places, for example 12.50");

/** A resource id as the service writes it in bodies: a positive integer. */
export const IdSchema = z.int({ error: expected("a positive integer") }).positive({
  error: "expected a positive integer",
});

/** A one-line text field (names, subjects): no line breaks or other control characters. */
export function oneLine(schema: z.ZodString) {
  return schema.refine((text) => controlCharacterIn(text, false) === undefined, {
    error: (issue) =>
      `must be one line without control characters (found ${controlCharacterIn(String(issue.input), false)})`,
  });
}

/** Free text (descriptions, messages): tabs and line breaks, but no other control characters. */
export function freeText(schema: z.ZodString) {
  return schema.refine((text) => controlCharacterIn(text, true) === undefined, {
    error: (issue) =>
      `must not contain control characters other than tabs and line breaks (found ${controlCharacterIn(String(issue.input), true)})`,
  });
}

/**
 * No invisible characters (src/lib/text.ts): for text a person tells apart by looking at it, such
 * as names and file names.
 */
export function visible<S extends z.ZodType<string>>(schema: S) {
  return schema.refine((text) => invisibleCharacterIn(text) === undefined, {
    error: (issue) =>
      `must not contain invisible or bidirectional control characters, which make different text look the same (found ${invisibleCharacterIn(String(issue.input))})`,
  });
}

/**
 * A human-chosen name in a request: one line of 1–255 characters, not only whitespace, without
 * invisible characters. The service compares names by src/lib/names.ts `nameKey`.
 */
export const NameInputSchema = visible(
  oneLine(
    z
      .string({ error: expected("a string") })
      .max(255, { error: "must be at most 255 characters" })
      .regex(/\S/, { error: "must not be empty or blank" }),
  ),
);

/** Free text in a request (descriptions and the like): at most 1000 characters. */
export const DescriptionInputSchema = freeText(
  z.string({ error: expected("a string") }).max(1000, { error: "must be at most 1000 characters" }),
);

/** A list of distinct ids in a request. */
export const IdListInputSchema = z
  .array(IdSchema, { error: expected("an array of positive integers") })
  .refine((ids) => new Set(ids).size === ids.length, { error: "must not contain duplicates" });

/**
 * A nested list in a response. Real services often send `null` (or nothing) for an empty
 * relation; both come out as `[]` so callers can always iterate.
 */
export function listOf<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((items): z.output<T>[] => items ?? []);
}

/** Answer of most mutating operations (spec: GenericResponse). */
export const GenericResponseSchema = z.object({
  /** Human-readable result text. */
  message: z.string().describe("Human-readable result text"),
  /** Whether the operation succeeded. */
  success: z.boolean().describe("Whether the operation succeeded"),
});
export type GenericResponse = z.infer<typeof GenericResponseSchema>;

/** The `code` values this project uses in error bodies (project decision; see design.md). */
export const ERROR_CODES = [
  "invalid_request",
  "unauthorized",
  "forbidden",
  "https_required",
  "not_found",
  "request_timeout",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "headers_too_large",
  "rate_limited",
  "internal",
  "unavailable",
] as const;
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** One field-level complaint in an error body. */
export const FieldErrorSchema = z.object({
  /** The request field at fault, in wire spelling with indexes (`rules[0].dport`). */
  field: z.string().describe("Request field at fault, for example rules[0].dport"),
  /** What is wrong with it. */
  message: z.string().describe("What is wrong with the field"),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

/**
 * Body of every non-2xx answer (project decision; the spec shows none). `code` is parsed as a
 * plain string so that a code added later still reads; {@link ERROR_CODES} lists the known ones.
 */
export const ErrorBodySchema = z.object({
  /** Always false in an error body. */
  success: z.literal(false).describe("Always false"),
  /** Human-readable explanation. */
  message: z.string().describe("Human-readable explanation"),
  /** Machine-readable snake_case code, one of ERROR_CODES. */
  code: z.string().describe("snake_case error code, for example not_found"),
  /** Field-level complaints (400 invalid_request). */
  errors: z.array(FieldErrorSchema).optional().describe("Field-level complaints, on 400"),
  /** On a 409 for a value that must be unique: the id of the object that holds it. */
  existing_id: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("On a 409 for a value that must be unique (a name, a key): the id of its holder"),
  /**
   * Beside `existing_id`: when the holder was made, by the service's clock (compare it with the
   * answer's `Date` header, never with the client's clock).
   */
  existing_created_at: TimestampSchema.optional().describe(
    "Beside existing_id: when the holder was made, by the service's clock",
  ),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Default and maximum page size of the paged lists (project decision). */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

const PAGE_ERROR = "expected an integer of at least 1";
const LIMIT_ERROR = `expected an integer from 1 to ${MAX_PAGE_LIMIT}`;

/**
 * Query of the two paged lists (`?page=&limit=`). Values are coerced because they arrive as
 * query-string text on the server side.
 */
export const PageQuerySchema = z.strictObject({
  /** 1-based page number; default 1. */
  page: z.coerce
    .number({ error: PAGE_ERROR })
    .int({ error: PAGE_ERROR })
    .min(1, { error: PAGE_ERROR })
    .default(1)
    .describe("1-based page number, default 1"),
  /** Items per page, 1 to 100; default 20. */
  limit: z.coerce
    .number({ error: LIMIT_ERROR })
    .int({ error: LIMIT_ERROR })
    .min(1, { error: LIMIT_ERROR })
    .max(MAX_PAGE_LIMIT, { error: LIMIT_ERROR })
    .default(DEFAULT_PAGE_LIMIT)
    .describe(`Items per page, 1 to ${MAX_PAGE_LIMIT}, default ${DEFAULT_PAGE_LIMIT}`),
});
export type PageQuery = z.output<typeof PageQuerySchema>;
/** What a caller passes to a paged list. */
export interface PageParams {
  /** 1-based page number; default 1. */
  page?: number;
  /** Items per page, 1 to 100; default 20. */
  limit?: number;
}

/** Paging fields shared by the paged answers. */
export const PageInfoShape = {
  /** Current page number (1-based). */
  page: z.int().describe("Current page number, 1-based"),
  /** Items per page. */
  limit: z.int().describe("Items per page"),
  /** Total items over all pages. */
  total_count: z.int().describe("Total items over all pages"),
  /** Total number of pages. */
  total_pages: z.int().describe("Total number of pages"),
};

/** Renders a zod issue path in wire spelling: `rules[0].dport`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describeValue(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  return typeof input === "object" ? "an object" : typeof input;
}

// Per-parse error map: wording for issues whose schema did not set its own message.
const friendlyErrors: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return "is required";
    return `expected ${issue.expected}, received ${describeValue(issue.input)}`;
  }
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return undefined;
};

/**
 * A lone surrogate (`"\ud800"`) is valid JSON text but not Unicode: the value cannot be written
 * as UTF-8, and tools that read the answer back (jq, most JSON parsers) refuse it.
 */
const LONE_SURROGATE = /\p{Cs}/u;

function loneSurrogate(text: string): string | undefined {
  const found = LONE_SURROGATE.exec(text)?.[0];
  return found === undefined
    ? undefined
    : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase()}`;
}

/**
 * One field error per string (or key) anywhere in `input` that is not well-formed Unicode. The
 * walk is iterative and linear ({@link forEachJsonValue}): a body nested thousands deep costs
 * what its size costs, and never the stack.
 */
function malformedUnicode(input: unknown): FieldError[] {
  const complaint = (surrogate: string) =>
    `must be well-formed Unicode; it holds a lone surrogate (${surrogate})`;
  const out: FieldError[] = [];
  forEachJsonValue(input, (value, path, key) => {
    const text = key ?? value;
    if (typeof text !== "string") return;
    const surrogate = loneSurrogate(text);
    if (surrogate === undefined) return;
    const field = formatPath(path()) || "(body)";
    out.push({
      field,
      message: key === undefined ? complaint(surrogate) : `a key ${complaint(surrogate)}`,
    });
  });
  return out;
}

/** Turns zod issues into one `{field, message}` per problem; unknown keys get one entry each. */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ field: formatPath([...issue.path, key]), message: "unknown field" });
      }
      continue;
    }
    out.push({ field: formatPath(issue.path) || "(body)", message: issue.message });
  }
  return out;
}

/** Result of {@link checkRequest}. */
export type CheckResult<T> =
  | { success: true; data: T }
  | { success: false; fieldErrors: FieldError[] };

/**
 * Validates a request body against its strict schema and reports every problem by field, in the
 * words both the client (before sending) and the emulator (in a 400 `errors` array) use. Every
 * string in a request must be well-formed Unicode, whatever its schema.
 */
export function checkRequest<S extends z.ZodType>(
  schema: S,
  input: unknown,
): CheckResult<z.output<S>> {
  const unicode = malformedUnicode(input);
  const result = schema.safeParse(input, { error: friendlyErrors });
  if (result.success && unicode.length === 0) return { success: true, data: result.data };
  const schemaErrors = result.success ? [] : toFieldErrors(result.error);
  const atFault = new Set(unicode.map((e) => e.field));
  return {
    success: false,
    fieldErrors: [...unicode, ...schemaErrors.filter((e) => !atFault.has(e.field))],
  };
}
