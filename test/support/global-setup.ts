/**
 * Nothing a test makes outside the project outlives it. Every vitest run gets an OS temp folder
 * of its own (TMPDIR, which `os.tmpdir()`, the test workers and every process they start read),
 * so the folders this run made are exactly what is in it, whoever else uses /tmp meanwhile. At
 * the end of the run anything a test left there fails the run, naming it, and is removed.
 *
 * Three folders there are caches kept between runs by design, not tests' folders, so they are not
 * counted (what they hold is removed with the run's folder): the package's own
 * (`pulumi-cloudinfra-<uid>`: create journals, the emulator registry), the compile cache of the
 * ts-node that Pulumi's Node runtime runs TypeScript programs with (`ts-node-<hash>`), and Node's
 * own module compile cache (`node-compile-cache`, which npm turns on).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The prefix of each run's temp folder, under the temp folder the run was started with. */
export const RUN_TEMP_PREFIX = "cloudinfra-vitest-";

/** What in a run's temp folder does not count as left behind: the caches above. */
const KEPT_BY_DESIGN = /^(pulumi-cloudinfra-|ts-node-|node-compile-cache$)/;

/** The entries of `dir` a test left behind. */
export function leftBehind(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !KEPT_BY_DESIGN.test(name))
    .sort();
}

export default function setup(): () => void {
  const saved = process.env["TMPDIR"];
  const dir = mkdtempSync(join(tmpdir(), RUN_TEMP_PREFIX));
  // Others may pass through (not list or write): test/resources/foreign-folders.test.ts plays
  // another user who plants folders in a shared temp folder made inside this one.
  chmodSync(dir, 0o711);
  process.env["TMPDIR"] = dir;
  return () => {
    if (saved === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = saved;
    const left = leftBehind(dir);
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest reports an error thrown here but still exits 0: the exit code fails the run.
      process.exitCode = 1;
      throw new Error(
        `tests left ${left.length} temporary ${left.length === 1 ? "entry" : "entries"} behind (make them with tempDir() of test/support/temp-dir.ts): ${left.join(", ")}`,
      );
    }
  };
}
