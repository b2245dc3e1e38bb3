/** Minimal structured logger the HTTP layer writes its debug lines to. */
export interface Logger {
  /** One diagnostic line; `fields` are already redacted by the caller. */
  debug(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (the default when CLOUDINFRA_LOG is not `debug`). */
export const silentLogger: Logger = {
  debug() {},
};

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
