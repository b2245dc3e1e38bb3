/**
 * The test-time guard of `checkStore`: the state read back from the database must equal the
 * state in memory. A route that changes a record without `table.update()` passes every test
 * that only looks at answers, and loses the change at the next restart; this finds it at once.
 */
import { isDeepStrictEqual } from "node:util";
import type { Store } from "./database";
import { type EmulatorState, restoreState } from "./state";
import type { RowSink } from "./table";

const discard: RowSink = { put() {}, delete() {}, putMeta() {} };

function snapshot(state: EmulatorState): unknown {
  return JSON.parse(JSON.stringify({ meta: state.metaRow(), accounts: state.accounts }));
}

/** The path of the first difference between `a` and `b` (`accounts[0].tags[2].name`). */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return path;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const child = Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`;
    const found = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      child,
    );
    if (found !== undefined) return found;
  }
  return path;
}

/** Throws unless the database holds exactly `state`. */
export function checkStore(store: Store, state: EmulatorState): void {
  const stored = store.load();
  if (stored === undefined) throw new Error("store check: the database holds no state");
  const inMemory = snapshot(state);
  const onDisk = snapshot(restoreState(discard, stored));
  const difference = firstDifference(inMemory, onDisk, "state");
  if (difference !== undefined) {
    throw new Error(
      `store check: the database differs from memory at ${difference}; a change was made without table.update() (or insert/remove/saveProfile)`,
    );
  }
}
