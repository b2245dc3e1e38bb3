/**
 * The CLI's second import, after node-check.ts and before anything opens a file, a socket or a
 * thread: on Linux with glibc it re-executes the CLI once under a fixed mmap threshold
 * (allocator.ts). `process.execve` replaces the process image: the pid, stdin, stdout and stderr
 * stay, so whoever started the CLI (and emulator.json's `pid`) still has the right process.
 */

import { messageOf } from "../../lib/message";
import { allocatorRestart } from "./allocator";

const restart = allocatorRestart({
  platform: process.platform,
  env: process.env,
  glibc: () => {
    const { header } = process.report.getReport() as { header?: { glibcVersionRuntime?: unknown } };
    const version = header?.glibcVersionRuntime;
    return typeof version === "string" ? version : undefined;
  },
  hasExecve: typeof process.execve === "function",
  execPath: process.execPath,
  argv0: process.argv0,
  execArgv: process.execArgv,
  argv: process.argv,
});
if (restart !== undefined) {
  try {
    process.execve?.(restart.file, restart.args, restart.env);
  } catch (error) {
    // Never fatal: the emulator runs as well without it, only keeping more freed memory.
    process.stderr.write(
      `cloudinfra-emulator: running with glibc's default allocator settings (could not restart under MALLOC_MMAP_THRESHOLD_: ${messageOf(error)})\n`,
    );
  }
}
