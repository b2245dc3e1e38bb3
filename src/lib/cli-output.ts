/**
 * How the package's command-line tools (`cloudinfra-emulator`, `cloudinfra-drift-report`, the
 * local engine's CLI, `scripts/*.mjs`) print errors and coloured text. The rules:
 * - an error is printed once, as `<tool>: <message>`;
 * - no stack trace, for the errors the package expects (a `CloudInfraError`, a refused
 *   input, a port in use) and for the others alike; `CLOUDINFRA_LOG=debug`, the package's one debug
 *   switch, adds it;
 * - ANSI colour codes reach a stream only when it is a terminal, unless `NO_COLOR` (any
 *   non-empty value) turns them off or `FORCE_COLOR` (non-empty, not `0` or `false`) turns them on,
 *   as https://no-color.org and https://force-color.org describe.
 */
import { stripVTControlCharacters } from "node:util";

type Env = Record<string, string | undefined>;

/** Whether `CLOUDINFRA_LOG=debug` asks for stack traces (and the provider's debug log). */
export function debugEnabled(env: Env = process.env): boolean {
  return env["CLOUDINFRA_LOG"]?.trim().toLowerCase() === "debug";
}

/** Whether colour codes may be written to `stream`. */
function colorEnabled(stream: { isTTY?: boolean }, env: Env = process.env): boolean {
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  return stream.isTTY === true;
}

/** `text` as `stream` may receive it: without colour codes unless {@link colorEnabled}. */
export function forStream(
  text: string,
  stream: { isTTY?: boolean },
  env: Env = process.env,
): string {
  return colorEnabled(stream, env) ? text : stripVTControlCharacters(text);
}

/** The lines a tool prints for `error`: its message once, and its stack trace when asked for. */
function formatError(tool: string, error: unknown, env: Env = process.env): string {
  if (!(error instanceof Error)) return `${tool}: ${String(error)}\n`;
  const head = `${tool}: ${error.message}\n`;
  if (!debugEnabled(env)) return head;
  // The stack's first lines repeat the message: print it once, then the frames.
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
  return frames === "" ? head : `${head}${frames}\n`;
}

/** Prints `error` to stderr by the rules above. */
export function reportError(tool: string, error: unknown): void {
  process.stderr.write(forStream(formatError(tool, error), process.stderr));
}
