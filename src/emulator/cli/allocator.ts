/**
 * The C allocator setting the emulator runs under (docs/emulator-limits.md, "What the emulator
 * keeps about requests"). glibc raises its mmap threshold each time a large block is freed, so
 * memory Node's TLS frees after many short connections stays resident; a fixed threshold hands it
 * back. Only the environment can set it, before the process starts, so the CLI re-executes
 * itself once with it (allocator-check.ts): `process.execve` keeps the pid and stdio.
 */

/** The glibc variable, and the value that fixes the threshold at 128 KiB (glibc's default). */
export const MMAP_THRESHOLD_VARIABLE = "MALLOC_MMAP_THRESHOLD_";
export const MMAP_THRESHOLD_BYTES = "131072";

/** What decides whether to re-execute: the running process, as far as it matters here. */
export interface AllocatorFacts {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** glibc's version at run time (`process.report`'s `glibcVersionRuntime`); undefined elsewhere. */
  glibc: () => string | undefined;
  hasExecve: boolean;
  execPath: string;
  argv0: string;
  execArgv: readonly string[];
  argv: readonly string[];
}

/** The image to execute: the same Node, options, script and arguments, with the variable added. */
export interface AllocatorRestart {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The re-execution that bounds the allocator's retention, or undefined where there is none to do:
 * not Linux, no `process.execve`, not glibc, or the threshold already chosen (by the user, or by
 * the one re-execution that already happened, so it never loops). The user's choice wins, whether
 * made with the variable or with `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...`.
 */
export function allocatorRestart(facts: AllocatorFacts): AllocatorRestart | undefined {
  if (facts.platform !== "linux" || !facts.hasExecve) return undefined;
  if (facts.env[MMAP_THRESHOLD_VARIABLE] !== undefined) return undefined;
  if (/(^|:)glibc\.malloc\.mmap_threshold=/.test(facts.env["GLIBC_TUNABLES"] ?? ""))
    return undefined;
  if (facts.glibc() === undefined) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts.env)) if (value !== undefined) env[name] = value;
  env[MMAP_THRESHOLD_VARIABLE] = MMAP_THRESHOLD_BYTES;
  return {
    file: facts.execPath,
    args: [facts.argv0, ...facts.execArgv, ...facts.argv.slice(1)],
    env,
  };
}
