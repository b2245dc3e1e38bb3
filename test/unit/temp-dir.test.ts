/**
 * The temp-folder rule: tempDir() folders go when their test or block ends, pass or fail, and a
 * run that leaves anything in its temp folder fails, naming it (test/support/global-setup.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import setup, { leftBehind, RUN_TEMP_PREFIX } from "../support/global-setup";
import { tempDir } from "../support/temp-dir";

describe("tempDir", () => {
  let inTest = "";
  let inFailedTest = "";
  let inHook = "";
  const atFileLevel = tempDir("temp-dir-file-");

  describe("a folder made in beforeAll", () => {
    beforeAll(() => {
      inHook = tempDir("temp-dir-hook-");
    });
    it("is there while the tests run, private to the user", () => {
      expect(statSync(inHook).isDirectory()).toBe(true);
      expect(statSync(inHook).mode & 0o777).toBe(0o700);
    });
  });

  it("is made under the run's own temp folder", () => {
    inTest = tempDir("temp-dir-test-");
    expect(inTest.startsWith(join(tmpdir(), "temp-dir-test-"))).toBe(true);
    expect(existsSync(inTest)).toBe(true);
  });

  it.fails("a test that fails", () => {
    inFailedTest = tempDir("temp-dir-failed-");
    throw new Error("this test fails on purpose");
  });

  it("removes a test's folder when the test ends, passed or failed", () => {
    expect([inTest, inFailedTest].every((dir) => dir !== "")).toBe(true);
    expect(existsSync(inTest)).toBe(false);
    expect(existsSync(inFailedTest)).toBe(false);
  });

  // Those go when the file ends: the run's check (below) fails the run if they stayed.
  it("keeps the folders made outside a test until the file ends", () => {
    expect(existsSync(atFileLevel)).toBe(true);
    expect(existsSync(inHook)).toBe(true);
  });
});

describe("the run's check", () => {
  const saved = process.env["TMPDIR"];
  const exitCode = process.exitCode;
  afterEach(() => {
    if (saved === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = saved;
    process.exitCode = exitCode;
  });

  it("gives the run a temp folder of its own and passes when the tests left nothing", () => {
    const teardown = setup();
    const runDir = tmpdir();
    expect(runDir.startsWith(join(saved ?? "", RUN_TEMP_PREFIX))).toBe(true);
    // The package's own folder and the compile caches are kept by design, not leftovers.
    mkdirSync(join(runDir, "pulumi-cloudinfra-1000"));
    mkdirSync(join(runDir, "ts-node-94a6b447580330f9"));
    mkdirSync(join(runDir, "node-compile-cache"));
    expect(() => teardown()).not.toThrow();
    expect(process.env["TMPDIR"]).toBe(saved);
    expect(existsSync(runDir)).toBe(false);
    expect(process.exitCode).toBe(exitCode);
  });

  it("fails the run, naming what a test left behind, and removes it", () => {
    const teardown = setup();
    const runDir = tmpdir();
    mkdtempSync(join(runDir, "journal-reads-"));
    mkdirSync(join(runDir, "create-test-abc"));
    const left = leftBehind(runDir);
    expect(left).toHaveLength(2);
    expect(() => teardown()).toThrow(
      `tests left 2 temporary entries behind (make them with tempDir() of test/support/temp-dir.ts): ${left.join(", ")}`,
    );
    expect(left[0]).toBe("create-test-abc");
    expect(existsSync(runDir)).toBe(false);
    expect(process.exitCode).toBe(1);
  });
});
