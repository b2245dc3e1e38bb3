/** What a child process printed, once it ended: for tests that run a command as a user would. */
import type { ChildProcess } from "node:child_process";

export interface ChildOutput {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Collects `child`'s standard output and error (spawned with pipes) until it closes. */
export function childOutput(child: ChildProcess): Promise<ChildOutput> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}
