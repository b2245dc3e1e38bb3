/** A process that has exited, for journal entries left by a dead provider host. */
import { spawnSync } from "node:child_process";

/** The pid of a process that has exited. */
export function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  if (pid === undefined) throw new Error("no child process");
  return pid;
}
