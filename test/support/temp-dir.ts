/**
 * The one way a test makes a temporary folder: private (mkdtemp makes it 0700), under the OS temp
 * folder, and removed when what made it ends, pass or fail. Nothing a test makes outside the
 * project outlives it; test/support/global-setup.ts checks that for every run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished, TestRunner } from "vitest";

/**
 * A new private folder `<os temp dir>/<prefix>XXXXXX`. Called inside a test it is removed when
 * that test finishes; called at file or `describe` level (or in `beforeAll`), when that file or
 * block finishes.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (TestRunner.getCurrentTest() === undefined) afterAll(remove);
  else onTestFinished(remove);
  return dir;
}
