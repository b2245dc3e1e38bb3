/**
 * `node:sqlite`, loaded on first use. Node 22 (22.19 does; Node 24 does not) prints
 * "ExperimentalWarning: SQLite is an experimental feature" when the module first loads; the
 * emulator's output is read by people and scripts that should not see it, so exactly that one
 * warning is kept off stderr. Every other warning passes.
 */
import type * as Sqlite from "node:sqlite";

let loaded: typeof Sqlite | undefined;

/** Whether `process.emitWarning(warning, ...rest)` is Node's warning about node:sqlite. */
function isSqliteExperimentalWarning(warning: string | Error, rest: unknown[]): boolean {
  const message = typeof warning === "string" ? warning : warning.message;
  const first = rest[0];
  const type =
    typeof warning !== "string"
      ? warning.name
      : typeof first === "string"
        ? first
        : (first as { type?: unknown } | undefined)?.type;
  return type === "ExperimentalWarning" && /^SQLite is an experimental feature/.test(message);
}

/** Runs `load` with the warnings `drop` matches kept from `process.emitWarning`. */
function withoutWarnings<T>(
  drop: (warning: string | Error, rest: unknown[]) => boolean,
  load: () => T,
): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (drop(warning, rest)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The `node:sqlite` module, without its experimental-feature warning. */
export function sqlite(): typeof Sqlite {
  loaded ??= withoutWarnings(
    isSqliteExperimentalWarning,
    () => require("node:sqlite") as typeof Sqlite,
  );
  return loaded;
}
