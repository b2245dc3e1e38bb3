/**
 * When the emulator's CLI re-executes itself under a fixed glibc mmap threshold (allocator.ts).
 * The process itself (same pid, the variable in its environment) is tested in core-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  type AllocatorFacts,
  allocatorRestart,
  MMAP_THRESHOLD_BYTES,
  MMAP_THRESHOLD_VARIABLE,
} from "../../src/emulator/cli/allocator";

function facts(overrides: Partial<AllocatorFacts> = {}): AllocatorFacts {
  return {
    platform: "linux",
    env: { PATH: "/usr/bin", HOME: "/home/u" },
    glibc: () => "2.36",
    hasExecve: true,
    execPath: "/opt/node/bin/node",
    argv0: "node",
    execArgv: ["--max-old-space-size=512"],
    argv: ["/opt/node/bin/node", "/p/dist/emulator/cli.js", "--port", "0"],
    ...overrides,
  };
}

describe("allocatorRestart", () => {
  it("re-executes the same Node, options, script and arguments, adding only the variable", () => {
    expect(allocatorRestart(facts())).toStrictEqual({
      file: "/opt/node/bin/node",
      args: ["node", "--max-old-space-size=512", "/p/dist/emulator/cli.js", "--port", "0"],
      env: { PATH: "/usr/bin", HOME: "/home/u", MALLOC_MMAP_THRESHOLD_: "131072" },
    });
    expect([MMAP_THRESHOLD_VARIABLE, MMAP_THRESHOLD_BYTES]).toEqual([
      "MALLOC_MMAP_THRESHOLD_",
      "131072",
    ]);
  });

  it("never twice: the process it starts has the variable and starts nothing", () => {
    const first = allocatorRestart(facts());
    expect(first).toBeDefined();
    expect(allocatorRestart(facts({ env: first?.env ?? {} }))).toBeUndefined();
  });

  it("leaves a threshold the user chose, by the variable (any value) or by GLIBC_TUNABLES", () => {
    for (const value of ["65536", "", "nonsense"]) {
      expect(
        allocatorRestart(facts({ env: { [MMAP_THRESHOLD_VARIABLE]: value } })),
      ).toBeUndefined();
    }
    for (const tunables of [
      "glibc.malloc.mmap_threshold=65536",
      "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536",
    ]) {
      expect(allocatorRestart(facts({ env: { GLIBC_TUNABLES: tunables } }))).toBeUndefined();
    }
    // Another tunable is no choice of threshold; it is kept.
    expect(
      allocatorRestart(facts({ env: { GLIBC_TUNABLES: "glibc.malloc.arena_max=2" } }))?.env,
    ).toStrictEqual({
      GLIBC_TUNABLES: "glibc.malloc.arena_max=2",
      MALLOC_MMAP_THRESHOLD_: "131072",
    });
  });

  it("does nothing off Linux, without process.execve, or with a C library other than glibc", () => {
    expect(allocatorRestart(facts({ platform: "darwin" }))).toBeUndefined();
    expect(allocatorRestart(facts({ platform: "win32" }))).toBeUndefined();
    expect(allocatorRestart(facts({ hasExecve: false }))).toBeUndefined();
    expect(allocatorRestart(facts({ glibc: () => undefined }))).toBeUndefined();
  });

  it("asks for the C library only when it would re-execute (the report costs milliseconds)", () => {
    let asked = 0;
    const glibc = () => {
      asked++;
      return "2.36";
    };
    allocatorRestart(facts({ glibc, env: { [MMAP_THRESHOLD_VARIABLE]: "131072" } }));
    allocatorRestart(facts({ glibc, platform: "darwin" }));
    expect(asked).toBe(0);
    allocatorRestart(facts({ glibc }));
    expect(asked).toBe(1);
  });
});
