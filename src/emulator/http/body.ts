/**
 * Request bodies: read within a size limit, then parsed as the route declares them (a JSON body
 * validated with its schema, multipart/form-data, or none) before the handler runs.
 */
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { checkRequest, type FieldError } from "../../api/schemas/common";
import { jsonTooDeep } from "../../lib/json-bounds";
import { messageOf } from "../../lib/message";
import { HttpError, invalidFields, invalidRequest } from "./http-errors";
import type { AnyRoute, TextBody } from "./router";

const MAX_JSON_BYTES = 1024 * 1024;
/** Attachments may total 2 MB; multipart framing and text fields get some room on top. */
const MAX_MULTIPART_BYTES = 3 * 1024 * 1024;

export interface ParsedBody {
  /** The validated JSON body (undefined for routes without a body schema). */
  body: unknown;
  /** The parsed form, on multipart routes. */
  form: FormData | undefined;
}

interface ContentType {
  /** `application/json`, lower case; undefined without a Content-Type. */
  type: string | undefined;
  /** The `charset` parameter, lower case, unquoted. */
  charset: string | undefined;
}

function contentType(header: string | undefined): ContentType {
  const [type, ...params] = (header ?? "").split(";");
  let charset: string | undefined;
  for (const param of params) {
    const [name, value] = param.split("=", 2).map((part) => part.trim());
    if (name?.toLowerCase() === "charset" && value !== undefined) {
      charset = value.replace(/^"(.*)"$/, "$1").toLowerCase();
    }
  }
  return { type: type?.trim().toLowerCase() || undefined, charset };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Where a request's body is read from: the request itself, or what {@link holdBody} kept of it. */
export type BodySource = AsyncIterable<unknown>;

/**
 * Reads the request body (from `source`, the request unless its body is held), refusing (413)
 * past `limit` bytes.
 */
export async function readBody(
  req: IncomingMessage,
  limit: number,
  source: BodySource = req,
): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, "payload_too_large", `Request body over ${limit} bytes`);
  if (Number(req.headers["content-length"] ?? "0") > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Keeps the body of a request the pipeline holds (a delay fault) as it arrives, up to the
 * largest body any route takes. Node throws away what it has received of a request whose client
 * hangs up; a real service that received a request whole applies it whether or not its client is
 * still there, so a request received whole is read from here after its client is gone. One cut
 * short ends the source with the hang-up's error, which {@link clientHungUp} recognises.
 */
export function holdBody(req: IncomingMessage): BodySource {
  const held = new PassThrough({ highWaterMark: MAX_MULTIPART_BYTES });
  // The hang-up is read from it after the delay; an error event nobody hears ends the process.
  held.on("error", () => undefined);
  req.pipe(held);
  req.once("close", () => {
    if (req.readableEnded) return;
    req.unpipe(held);
    if (req.complete) held.end();
    else held.destroy(req.errored ?? new Error("aborted"));
  });
  return held;
}

/**
 * True when `error` is the client closing the connection before it sent the whole request (Node
 * ends the body stream with `aborted`), not a failure of the emulator.
 */
export function clientHungUp(req: IncomingMessage, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return !(error instanceof HttpError) && (code === "ECONNRESET" || req.destroyed) && !req.complete;
}

function unsupportedMediaType(route: AnyRoute, wanted: string, type: string | undefined) {
  return new HttpError(
    415,
    "unsupported_media_type",
    `${route.method} ${route.path} takes ${wanted}, not ${type ?? "an untyped body"}`,
  );
}

async function parseMultipart(
  req: IncomingMessage,
  route: AnyRoute,
  source: BodySource,
): Promise<ParsedBody> {
  const { type } = contentType(req.headers["content-type"]);
  if (type !== "multipart/form-data") {
    throw unsupportedMediaType(route, "multipart/form-data", type);
  }
  const raw = await readBody(req, MAX_MULTIPART_BYTES, source);
  try {
    const form = await new Request("https://emulator.invalid/", {
      method: "POST",
      headers: { "content-type": req.headers["content-type"] ?? "" },
      body: raw,
    }).formData();
    const notUtf8 = partsNotUtf8(raw, req.headers["content-type"] ?? "");
    if (notUtf8.length > 0) throw invalidFields(notUtf8, "Invalid multipart body");
    return { body: undefined, form };
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw invalidRequest(`Malformed multipart body: ${messageOf(error)}`);
  }
}

/**
 * The text parts (those without a filename) whose bytes are not UTF-8, and the file parts whose
 * file name is not (as `attachments[0].filename`, counting the files of each name). `formData()`
 * decodes such bytes into replacement characters, which a ticket would then store as if the
 * user had written them; so the raw parts are checked here, after it has accepted the framing.
 */
function partsNotUtf8(raw: Buffer, header: string): FieldError[] {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(header);
  const delimiter = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ""}`);
  if (delimiter.length <= 2) return [];
  const errors: FieldError[] = [];
  const filesSeen = new Map<string, number>();
  const notUtf8 = (bytes: Buffer): boolean => {
    try {
      utf8.decode(bytes);
      return false;
    } catch {
      return true;
    }
  };
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    // A part runs from after the delimiter's line break to the CRLF before the next delimiter.
    const part = raw.subarray(start, next - 2);
    const headerEnd = part.indexOf("\r\n\r\n");
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString("latin1");
      const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? "";
      const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
      const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
      if (name !== undefined && filename !== undefined) {
        const index = filesSeen.get(name) ?? 0;
        filesSeen.set(name, index + 1);
        // The headers were read as Latin-1, one character per byte: these are the raw bytes.
        if (notUtf8(Buffer.from(filename, "latin1"))) {
          errors.push({
            field: `${name}[${index}].filename`,
            message: "is not valid UTF-8; file names must be UTF-8",
          });
        }
      } else if (name !== undefined && !/;\s*filename\*?=/i.test(disposition)) {
        if (notUtf8(part.subarray(headerEnd + 4))) {
          errors.push({ field: name, message: "is not valid UTF-8; text fields must be UTF-8" });
        }
      }
    }
    at = next;
  }
  return errors;
}

/** The body as UTF-8 text: 415 for a charset other than UTF-8, 400 for bytes that are not UTF-8. */
function decodeUtf8(route: AnyRoute, raw: Buffer, type: string, charset: string | undefined) {
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw unsupportedMediaType(route, `${type} in UTF-8`, `charset=${charset.slice(0, 40)}`);
  }
  try {
    return utf8.decode(raw);
  } catch {
    throw invalidRequest(`Body is not valid UTF-8; ${type} bodies must be UTF-8`);
  }
}

/**
 * A JSON request body's text parsed, its nesting checked first (`MAX_JSON_DEPTH`, a linear
 * scan): 400 naming the bound, or naming what is not JSON.
 */
export function parseJsonBody(text: string): unknown {
  const tooDeep = jsonTooDeep(text);
  if (tooDeep !== undefined) {
    throw invalidRequest(
      `Body nests arrays and objects more than ${tooDeep.limit} deep (at character ${tooDeep.offset + 1}); at most ${tooDeep.limit} levels are read`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`Body is not valid JSON: ${messageOf(error)}`);
  }
}

async function parseJson(
  req: IncomingMessage,
  route: AnyRoute,
  source: BodySource,
): Promise<ParsedBody> {
  const { type, charset } = contentType(req.headers["content-type"]);
  const raw = await readBody(req, MAX_JSON_BYTES, source);
  const isJson = type === "application/json" || (type?.endsWith("+json") ?? false);
  if ((type !== undefined || raw.length > 0) && !isJson) {
    throw unsupportedMediaType(route, "application/json", type);
  }
  const text = decodeUtf8(route, raw, "application/json", charset);
  const parsed = raw.length > 0 ? parseJsonBody(text) : {};
  const checked = checkRequest(route.body as NonNullable<AnyRoute["body"]>, parsed);
  if (!checked.success) throw invalidFields(checked.fieldErrors, "Invalid request body");
  return { body: checked.data, form: undefined };
}

async function parseText(
  req: IncomingMessage,
  route: AnyRoute,
  types: readonly string[],
  source: BodySource,
): Promise<ParsedBody> {
  const { type, charset } = contentType(req.headers["content-type"]);
  const raw = await readBody(req, MAX_JSON_BYTES, source);
  if ((type !== undefined || raw.length > 0) && (type === undefined || !types.includes(type))) {
    throw unsupportedMediaType(route, types.join(" or "), type);
  }
  const text = decodeUtf8(route, raw, type ?? "text", charset);
  const body: TextBody = { type, text };
  if (route.readText === undefined) return { body, form: undefined };
  const read = route.readText(body);
  // Requests that arrived while it was read take their turn before the transaction that uses
  // it: a first turn of the event loop reads their sockets, a second lets them begin.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  return { body: read, form: undefined };
}

/** Reads and checks the body the route declares: 415 for the wrong type, 400 when invalid. */
export async function parseBody(
  req: IncomingMessage,
  route: AnyRoute,
  source: BodySource = req,
): Promise<ParsedBody> {
  if (route.multipart === true) return parseMultipart(req, route, source);
  if (route.text !== undefined) return parseText(req, route, route.text, source);
  if (route.body !== undefined) return parseJson(req, route, source);
  // Bodies of routes that take none are read and ignored, so the connection stays usable.
  await readBody(req, MAX_JSON_BYTES, source);
  return { body: undefined, form: undefined };
}
