/**
 * The debug log (`CLOUDINFRA_LOG=debug`) and what it may show of a request or an answer.
 *
 * The rule: a log line never holds a value that travelled in a body. A provider cannot know which
 * inputs the user marked secret (a Tag's `data`, a role's description, a user's DID), and the
 * service's own error text can echo what was sent, so bodies are described by their shape only:
 * the names of their top-level fields, or the number of items of a list. What a line shows is
 * listed in the README ("Logging"); keep the two in step.
 */

/** Minimal structured logger the HTTP layer writes its debug lines to. */
export interface Logger {
  /** One diagnostic line; `fields` never hold a body value (see {@link bodyShape}). */
  debug(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (the default when CLOUDINFRA_LOG is not `debug`). */
export const silentLogger: Logger = {
  debug() {},
};

/**
 * What the log shows of a JSON body: `{fields: [...]}` (top-level names, sorted) for an object,
 * `{items: n}` for a list, the type name for anything else, `undefined` for no body.
 */
export function bodyShape(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return { items: value.length };
  if (value !== null && typeof value === "object") return { fields: Object.keys(value).sort() };
  return value === null ? "null" : typeof value;
}

/**
 * A logger writing one line per call to stderr: `cloudinfra <message> {json fields}`. Stderr
 * because a Pulumi program's stdout belongs to the engine.
 */
export function stderrLogger(
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  return {
    debug(message, fields) {
      let line = `cloudinfra ${new Date().toISOString()} ${message}`;
      if (fields !== undefined && Object.keys(fields).length > 0) {
        line += ` ${safeJson(fields)}`;
      }
      write(`${line}\n`);
    },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    return "[unserializable]";
  }
}

/** `CLOUDINFRA_LOG=debug` gives stderr lines; anything else gives a no-op logger. */
export function loggerFromEnv(env: NodeJS.ProcessEnv = process.env): Logger {
  return env["CLOUDINFRA_LOG"]?.trim().toLowerCase() === "debug" ? stderrLogger() : silentLogger;
}
