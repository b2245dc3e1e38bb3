/**
 * Request bodies: JSON or `multipart/form-data` bytes, encoded once per call (every attempt
 * sends the same bytes), and what the debug log may show of them.
 */
import { randomBytes } from "node:crypto";
import { bodyShape } from "./log";

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

export interface EncodedBody {
  bytes: Buffer | undefined;
  contentType: string | undefined;
  /** What the debug log shows of the body: its shape, never a value (see log.ts). */
  logShape: unknown;
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

/** The body of a request: `multipart` when given, else `body` as JSON when given, else none. */
export function encodeBody(content: { body?: unknown; multipart?: MultipartBody }): EncodedBody {
  if (content.multipart !== undefined) {
    const { bytes, contentType } = encodeMultipart(content.multipart);
    return {
      bytes,
      contentType,
      logShape: {
        fields: Object.keys(content.multipart.fields).sort(),
        files: content.multipart.files.length,
        fileBytes: content.multipart.files.reduce((sum, f) => sum + f.data.byteLength, 0),
      },
    };
  }
  if (content.body !== undefined) {
    return {
      bytes: Buffer.from(JSON.stringify(content.body), "utf8"),
      contentType: "application/json",
      logShape: bodyShape(content.body),
    };
  }
  return { bytes: undefined, contentType: undefined, logShape: undefined };
}
