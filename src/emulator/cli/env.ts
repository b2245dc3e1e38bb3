/**
 * `cloudinfra-emulator env` (and `npm run -s emulator:env`): the `export CLOUDINFRA_...=` lines
 * of a running emulator, for `eval "$(...)"` in another shell. It finds the emulator in
 * `--data-dir DIR`, or else the one running in `./.emulator` (even when others run), or else the
 * only one started anywhere else on this machine by this user (registry.ts), and says on stderr
 * which one it chose. It refuses an
 * emulator.json whose process is gone (a crashed or killed emulator) rather than printing
 * settings that cannot work, and refuses to guess between several running emulators.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UnsafeFolderError } from "../../lib/private-dir";
import { processRunning } from "../../lib/process";
import { registeredInfoFiles } from "./registry";

/** What a running emulator writes to `<data-dir>/emulator.json`. */
export interface EmulatorInfoFile {
  endpoint: string;
  caCertFile: string;
  apiKey: string;
  pid: number;
  /** The data dir; null for an emulator in memory (its emulator.json sits in a temp dir). */
  dataDir: string | null;
}

/** Single-quotes a value for a POSIX shell when it holds anything but safe characters. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The lines a shell evaluates to talk to this emulator. */
export function exportLines(info: Pick<EmulatorInfoFile, "endpoint" | "apiKey" | "caCertFile">) {
  return (
    `export CLOUDINFRA_ENDPOINT=${shellQuote(info.endpoint)}\n` +
    `export CLOUDINFRA_API_KEY=${shellQuote(info.apiKey)}\n` +
    `export CLOUDINFRA_CA_CERT=${shellQuote(info.caCertFile)}\n`
  );
}

interface Candidate {
  file: string;
  info?: EmulatorInfoFile;
  /** Why this one cannot be used. */
  problem?: string;
}

function describeEmulator(info: EmulatorInfoFile, file: string): string {
  const where = info.dataDir === null ? "in memory" : `data dir ${info.dataDir ?? dirname(file)}`;
  return `${info.endpoint} (pid ${info.pid}, ${where})`;
}

function inspect(file: string): Candidate {
  let info: EmulatorInfoFile;
  try {
    info = JSON.parse(readFileSync(file, "utf8")) as EmulatorInfoFile;
  } catch (error) {
    return { file, problem: `${file} cannot be read (${(error as Error).message})` };
  }
  if (!processRunning(info.pid)) {
    return {
      file,
      info,
      problem: `${file} names pid ${info.pid}, which is no longer running (the emulator was killed or crashed); start it again`,
    };
  }
  return { file, info };
}

export interface EnvResult {
  /** The export lines; empty when no emulator could be chosen. */
  stdout: string;
  /** What was found and chosen, or why nothing was. */
  stderr: string;
  code: number;
}

/** Finds the emulator to print the settings of (see the module comment). */
export function emulatorEnv(options: { dataDir?: string | undefined; cwd: string }): EnvResult {
  const fail = (message: string): EnvResult => ({
    stdout: "",
    stderr: `emulator env: ${message}\n`,
    code: 1,
  });
  if (options.dataDir !== undefined) {
    const dir = resolve(options.cwd, options.dataDir);
    const file = join(dir, "emulator.json");
    if (!existsSync(file)) {
      return fail(
        `no emulator runs in ${dir} (no emulator.json); start one with \`npm run emulator -- --data-dir ${dir}\``,
      );
    }
    const found = inspect(file);
    if (found.info === undefined || found.problem !== undefined) return fail(found.problem ?? "");
    return {
      stdout: exportLines(found.info),
      stderr: `emulator env: using the emulator at ${describeEmulator(found.info, file)}\n`,
      code: 0,
    };
  }
  const local = resolve(options.cwd, ".emulator", "emulator.json");
  let registered: string[];
  try {
    registered = registeredInfoFiles();
  } catch (error) {
    // A registry someone else could write would name their server: nothing it says is printed.
    if (error instanceof UnsafeFolderError) return fail(error.message);
    throw error;
  }
  const files = [...new Set([...(existsSync(local) ? [local] : []), ...registered])];
  const candidates = files.map(inspect);
  const running = candidates.filter(
    (c): c is Candidate & { info: EmulatorInfoFile } =>
      c.info !== undefined && c.problem === undefined,
  );
  const stale = candidates.flatMap((c) => (c.problem === undefined ? [] : [`  ${c.problem}`]));
  // The project's own ./.emulator wins over emulators started elsewhere: it is the one the
  // README's commands in this directory started.
  const chosen =
    running.find((c) => c.file === local) ?? (running.length === 1 ? running[0] : undefined);
  if (chosen !== undefined) {
    const others = running.flatMap((c) =>
      c === chosen
        ? []
        : [`  ${describeEmulator(c.info, c.file)} (running; --data-dir chooses it)`],
    );
    const notUsed = [...others, ...stale];
    return {
      stdout: exportLines(chosen.info),
      stderr:
        `emulator env: using the emulator at ${describeEmulator(chosen.info, chosen.file)}\n` +
        (notUsed.length > 0 ? `emulator env: not using:\n${notUsed.join("\n")}\n` : ""),
      code: 0,
    };
  }
  if (running.length > 1) {
    return fail(
      `${running.length} emulators are running; choose one with \`npm run -s emulator:env -- --data-dir DIR\`:\n` +
        running.map((c) => `  ${describeEmulator(c.info, c.file)}`).join("\n"),
    );
  }
  return fail(
    `no running emulator found in ./.emulator or started elsewhere by this user; start one with \`npm run emulator\`` +
      (stale.length > 0 ? `\n${stale.join("\n")}` : ""),
  );
}
