/**
 * `npm run bench` keeps running: the benchmarks reach into the built package's modules, so a
 * refactor can break one without any other test noticing (it happened twice). Each of these runs
 * once, small, and must end with its table; their figures are not asserted (timings are noisy),
 * except counts that do not depend on timing.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/programs";

function bench(names: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join(ROOT, "bench", "run.mjs"), ...names], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe("the benchmarks", () => {
  it("that read the package's internals run to their tables", () => {
    // One provisioning time for the server wait: the full run's 2 s and 8 s are waits, not code.
    const { code, out, err } = bench(["shared-list", "server-wait", "host", "durable"], {
      BENCH_SERVER_WAIT_DURATIONS: "500",
    });
    expect(err).not.toMatch(/Error/);
    expect(out).not.toContain("FAILED");
    expect(code).toBe(0);
    for (const title of [
      "Shared list reads",
      "Waiting for a server",
      "provider host",
      "durable write",
    ]) {
      expect(out.toLowerCase()).toContain(title.toLowerCase());
    }
  }, 240_000);

  it("of hostile input run, small, and count junk methods under one key", () => {
    const { code, out, err } = bench(["hostile"], { BENCH_HOSTILE_CONNECTIONS: "40" });
    expect(err).not.toMatch(/Error/);
    expect(code).toBe(0);
    expect(out).toMatch(/JSON nested 8,000 deep, POST \/v1\/tags \(400\)/);
    expect(out).toMatch(/40 junk-method connections/);
    expect(out).toMatch(/counter keys before → after\s+0 → 2\s+\+2 \(goal ≤ 10\)/);
  }, 240_000);

  it("of whole programs run, small, through the local engine, and no rate-limited run fails", () => {
    const { code, out } = bench(["rate-limit"], { BENCH_RATE_RUNS: "2", BENCH_RATE_SIZE: "3" });
    expect(out).not.toContain("FAILED");
    expect(code).toBe(0);
    expect(out).toMatch(/runs that failed\s+0 of 2/);
  }, 240_000);

  it("of wrong keys runs, small, and the right key after them is throttled too", () => {
    const { code, out } = bench(["wrong-keys"], { BENCH_WRONG_KEYS: "100" });
    expect(out).not.toContain("FAILED");
    expect(code).toBe(0);
    expect(out).toContain("Wrong API keys: 100 from one address");
    expect(out).toMatch(/the right key right after, same address\s+429/);
  }, 240_000);

  it("of the inventory runs, small: one list per kind, the strays found", () => {
    const { code, out } = bench(["inventory"], { BENCH_INVENTORY_OBJECTS: "200" });
    expect(out).not.toContain("FAILED");
    expect(code).toBe(0);
    expect(out).toMatch(/GET \/v1\/servers requests \(Server\)\s+1\s/);
    expect(out).toMatch(
      /GET \/v1\/firewall\/groups requests \(SecurityGroup \(\+ attachments\)\)\s+1\s/,
    );
    expect(out).toMatch(/unmanaged found \(of 10 left out\)\s+10\s/);
  }, 240_000);
});
