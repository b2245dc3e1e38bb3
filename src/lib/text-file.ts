/**
 * Reading a text file a user named (a manifest, a key file it names, a seed file): the one rule
 * for files whose name comes from input. The file must be a regular file (not a folder, a FIFO,
 * a device such as /dev/zero, a socket) of at most `maxBytes`, which is known from `fstat` of
 * the opened file before a byte is read (opened non-blocking, so a FIFO without a writer never
 * hangs the open), and UTF-8: a file in another encoding is named with the line and column
 * where it stops being UTF-8 (UTF-16 and UTF-32 by their byte order mark or their zero bytes).
 */
import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { whyUnreadable } from "./read-failure";

/** The text, or what is wrong (at `line`:`column` when a place in the file is at fault). */
export type TextFile =
  | { ok: true; text: string }
  | { ok: false; message: string; line?: number; column?: number };

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** `1.5 MiB`, `16 KiB`, `300 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** Reads `path` by the rule at the top of this module. Never throws. */
export function readTextFile(path: string, maxBytes: number): TextFile {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENXIO") return { ok: false, message: "a socket, not a regular file" };
    return { ok: false, message: whyUnreadable(err) };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, message: `${kindOf(st)}, not a regular file` };
    if (st.size > maxBytes) {
      return {
        ok: false,
        message: `${st.size} bytes, more than the ${formatBytes(maxBytes)} allowed`,
      };
    }
    // One byte more than allowed tells a file that grew since fstat.
    const buffer = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) {
        return { ok: false, message: `more than the ${formatBytes(maxBytes)} allowed` };
      }
    }
    return decodeUtf8(buffer.subarray(0, length));
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  } finally {
    closeSync(fd);
  }
}

const SAVE_AS_UTF8 = "save it as UTF-8";

/** The text of `bytes`, or where they stop being UTF-8 (a UTF-8 byte order mark is dropped). */
export function decodeUtf8(bytes: Uint8Array): TextFile {
  const [a, b, c, d] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) {
    const wide = a === 0xff && c === 0 && d === 0 ? "UTF-32" : "UTF-16";
    return {
      ok: false,
      message: `not UTF-8: the file is ${wide} (it starts with a ${wide} byte order mark); ${SAVE_AS_UTF8}`,
      line: 1,
      column: 1,
    };
  }
  const bad = isUtf8(bytes) ? -1 : firstInvalidUtf8(bytes);
  const zero = bytes.indexOf(0);
  const at = bad === -1 ? zero : zero === -1 ? bad : Math.min(bad, zero);
  if (at === -1) {
    const start = a === 0xef && b === 0xbb && c === 0xbf ? 3 : 0;
    return {
      ok: true,
      text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8", start),
    };
  }
  const { line, column } = position(bytes, at);
  const message =
    at === zero
      ? `not UTF-8 text: a zero byte at ${line}:${column} (a UTF-16 or UTF-32 file has them between its characters); ${SAVE_AS_UTF8}`
      : `not UTF-8 at ${line}:${column} (byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, "0")}; Latin-1 or another 8-bit encoding?); ${SAVE_AS_UTF8}`;
  return { ok: false, message, line, column };
}

/** The 1-based line and column (in characters) of byte `offset`, all of it UTF-8 before. */
function position(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  // Continuation bytes (10xxxxxx) do not start a character.
  for (let i = lineStart; i < offset; i++) if (((bytes[i] ?? 0) & 0xc0) !== 0x80) column++;
  return { line, column };
}

/** The offset of the first byte that is not well-formed UTF-8 (RFC 3629), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const x = bytes[i] ?? 0;
    if (x < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (x >= 0xc2 && x <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (x >= 0xe0 && x <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (x >= 0xf0 && x <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      return i;
    }
    let cp = x & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const y = bytes[i + k];
      if (y === undefined || (y & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (y & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}
