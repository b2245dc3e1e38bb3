import { readFileSync } from "node:fs";

/**
 * Whether process `pid` runs. A zombie (killed, not yet reaped by its parent) does not: it
 * answers nothing and holds no lock, though `kill(pid, 0)` still finds it.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return /^\d+ \(.*\) (\S)/.exec(stat)?.[1] !== "Z";
  } catch {
    // No /proc (macOS): the signal check is all there is.
    return true;
  }
}
