/**
 * Seeds for the emulator's fault injection that give a chosen sequence of outcomes. Outcomes are
 * deterministic from the seed and the sequence of requests a rule matches (src/emulator/http/faults.ts),
 * so a test that needs "the first list succeeds, the next five fail" probes seeds with requests
 * of its own until one gives that sequence, then replays it for the code under test.
 */
import type { FaultRule } from "../../src/emulator";
import type { TestEmulator } from "./emulator";

/**
 * The first seed (from 1) under which `rule`, alone, answers `pattern.length` requests of its
 * method and `probePath` as `pattern` says (`true`: a fault). Probing makes real requests: the
 * rule must be read-only (a GET) and the emulator's rate limit off.
 */
export async function seedGiving(
  emulator: TestEmulator,
  rule: FaultRule & { method: "GET" },
  probePath: string,
  pattern: readonly boolean[],
  maxSeed = 10_000,
): Promise<number> {
  for (let seed = 1; seed <= maxSeed; seed++) {
    emulator.admin.setFaults({ seed, rules: [rule] });
    let matches = true;
    for (const fault of pattern) {
      const { status } = await emulator.call("GET", probePath);
      if (status >= 400 !== fault) {
        matches = false;
        break;
      }
    }
    if (matches) {
      emulator.admin.clearFaults();
      return seed;
    }
  }
  throw new Error(`no seed up to ${maxSeed} gives the pattern ${pattern.join(",")}`);
}
