/**
 * `npm run local-engine -- ...` as a person runs it, for tests: the CLI in its own process (without
 * the build step) from the repository root, and the emulator.json its `--emulator` option reads.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI = join(import.meta.dirname, "cli.ts");

export interface CliRun {
  child: ChildProcessByStdio<null, Readable, Readable>;
  done: Promise<{ status: number | null; stdout: string; stderr: string }>;
}

/** Starts `npm run local-engine -- <args>`; `detached` gives it its own process group. */
export function localEngineCli(
  args: string[],
  options: { detached?: boolean; env?: NodeJS.ProcessEnv } = {},
): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached === true,
    env: { ...process.env, ...options.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => {
    stdout += b.toString();
  });
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString();
  });
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((ok) => {
    child.once("close", (status) => ok({ status, stdout, stderr }));
  });
  return { child, done };
}

/** Writes `dir/emulator.json` (and its CA file) as `npm run emulator` does; returns its path. */
export function writeEmulatorFile(
  dir: string,
  emulator: { endpoint: string; apiKey: string; caCert: string },
): string {
  writeFileSync(join(dir, "ca.pem"), emulator.caCert);
  const file = join(dir, "emulator.json");
  writeFileSync(
    file,
    JSON.stringify({
      endpoint: emulator.endpoint,
      apiKey: emulator.apiKey,
      caCertFile: join(dir, "ca.pem"),
    }),
  );
  return file;
}

/**
 * `npm run local-engine -- <args>` on a project's stack (its state file) against an emulator,
 * with the `emulator.json` written beside the state; resolves when the CLI ends.
 */
export function localEngineCliOn(
  target: {
    projectDir: string;
    stateFile: string;
    emulator: { endpoint: string; apiKey: string; caCert: string };
  },
  args: string[],
): CliRun["done"] {
  const emulatorFile = writeEmulatorFile(dirname(target.stateFile), target.emulator);
  return localEngineCli([
    ...args,
    "--cwd",
    target.projectDir,
    "--state",
    target.stateFile,
    "--emulator",
    emulatorFile,
  ]).done;
}
