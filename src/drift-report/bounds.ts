/**
 * The drift report's input bounds, checked before any work that grows with the input, in one
 * pass over the text (no recursion, so no input can overflow the stack):
 *
 * - size: at most {@link MAX_INPUT_BYTES} per run (a whole 100,000-event log is ~60 MB);
 * - nesting: at most {@link MAX_DEPTH} levels of JSON arrays and objects (a run's own structure
 *   takes 6 of them; Pulumi property values of this package's resources take fewer than 6). Every
 *   later walk of a value is recursive, and this bound is what keeps it from overflowing;
 * - one run per input: a preview digest followed by anything else is refused (an event stream's
 *   second run is refused by the reader, which knows where a run ends).
 */
import { CloudInfraError, nameErrorClass } from "../api/errors";

/** The most bytes one run's JSON may have. */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;
/** The deepest nesting of JSON arrays and objects read. */
export const MAX_DEPTH = 64;

/** The input is not one whole Pulumi run: neither a preview digest nor an engine event stream. */
export class NotPulumiJsonError extends CloudInfraError {
  static {
    nameErrorClass(NotPulumiJsonError, "NotPulumiJsonError");
  }
}

/** An input past a bound (size, nesting), or two runs in one input. */
export class InputBoundError extends NotPulumiJsonError {
  static {
    nameErrorClass(InputBoundError, "InputBoundError");
  }
}

/** Where the first top-level JSON value of a text ends, and how deep the text nests. */
export interface JsonScan {
  /** Index just past the first top-level array or object; -1 when it never closes. */
  firstEnd: number;
}

/**
 * One pass over `text`: refuses nesting deeper than {@link MAX_DEPTH} (naming the line) and finds
 * where the first top-level array or object ends. Strings are skipped, escapes included; the
 * text need not be valid JSON (JSON.parse says what is wrong with it later).
 */
export function scanJson(text: string): JsonScan {
  // The regex engine finds the next bracket or quote; a string is skipped to its closing quote
  // (one not escaped: preceded by an even run of backslashes, and those runs never overlap).
  const special = /["{}[\]]/g;
  let depth = 0;
  let firstEnd = -1;
  for (let m = special.exec(text); m !== null; m = special.exec(text)) {
    const at = m.index;
    const c = text.charCodeAt(at);
    if (c === 34) {
      let end = text.indexOf('"', at + 1);
      while (end !== -1) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) break;
      special.lastIndex = end + 1;
    } else if (c === 123 || c === 91) {
      depth++;
      if (depth > MAX_DEPTH) {
        throw new InputBoundError(
          `line ${lineAt(text, at)}: JSON nested deeper than ${MAX_DEPTH} levels; the report reads at most ${MAX_DEPTH} (a Pulumi run's own structure takes 6, its property values the rest)`,
        );
      }
    } else {
      depth--;
      if (depth === 0 && firstEnd === -1) firstEnd = at + 1;
    }
  }
  return { firstEnd };
}

/** The 1-based line of `index` in `text`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Refuses a text longer than {@link MAX_INPUT_BYTES} (counted in UTF-16 units, a lower bound). */
export function checkInputSize(length: number, what: string): void {
  if (length > MAX_INPUT_BYTES) {
    throw new InputBoundError(
      `${what} has ${length} bytes; the report reads at most ${MAX_INPUT_BYTES} (256 MiB) per run`,
    );
  }
}
