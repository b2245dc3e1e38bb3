/**
 * The one way a test makes a temporary folder: private (mkdtemp makes it 0700), under the OS temp
 * folder, and removed when what made it ends, pass or fail. Nothing a test makes outside the
 * project outlives it; test/support/global-setup.ts checks that for every run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished, TestRunner } from "vitest";

/** Folders made outside a test (at file or `describe` level, in `beforeAll`): gone when the file ends. */
const fileDirs = new Set<string>();

function remove(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

// Registered while the test file is collected (this module is imported then), on the file itself:
// a hook registered later, from inside `beforeAll`, would never run.
afterAll(() => {
  for (const dir of fileDirs) remove(dir);
  fileDirs.clear();
});

/**
 * A new private folder `<os temp dir>/<prefix>XXXXXX`. Made inside a test (or its `beforeEach`),
 * it is removed when that test finishes; made anywhere else (at file or `describe` level, in
 * `beforeAll`), when the test file ends.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (TestRunner.getCurrentTest() === undefined) fileDirs.add(dir);
  else onTestFinished(() => remove(dir));
  return dir;
}
