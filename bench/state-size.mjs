// 6. Emulator writes against the size of its state: POST /v1/tags (create) into --data-dir
// emulators whose account already holds 100, 10,000 or 100,000 objects (servers, tags, security
// groups, tickets and invoices in equal parts, made by the admin seed). A write must cost the
// same whatever the state holds: the goal is the 100,000 figure at 2/3 of the 100 figure or more.
// The three emulators run side by side and are measured in alternating rounds, so that drift in
// the machine's load (it is shared) falls on all three alike.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientFor, now, num, pool, ratio, startBenchEmulator, table } from "./support.mjs";

export const STATE_SIZES = [100, 10_000, 100_000];
const ROUNDS = 6;
/** Each round measures each emulator for this long. */
const ROUND_MS = 400;
const WIDTH = 8;

/** `size` objects spread evenly over the kinds the seed makes. */
function seedRequest(size) {
  const kinds = ["servers", "tags", "security_groups", "tickets", "invoices"];
  const each = Math.floor(size / kinds.length);
  const request = Object.fromEntries(kinds.map((kind) => [kind, each]));
  request.servers += size - each * kinds.length;
  return request;
}

/** Creates tags with `width` in flight for `ms`; returns [writes, elapsed ms]. */
async function writeFor(target, width, ms) {
  let done = 0;
  const started = now();
  const worker = async () => {
    while (now() - started < ms) {
      await target.create();
      done++;
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return [done, now() - started];
}

export async function benchStateSize() {
  const targets = [];
  try {
    for (const size of STATE_SIZES) {
      const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-bench-state-"));
      const emulator = await startBenchEmulator({ dataDir });
      const client = clientFor(emulator);
      const target = { size, dataDir, emulator, client, n: 0, seq: [0, 0], conc: [0, 0] };
      target.create = () =>
        client.tags.create({ name: `bench-${target.n++}`, color: "#112233", data: "bench" });
      targets.push(target);
      const seedStarted = now();
      await emulator.admin.seed(seedRequest(size));
      target.seedMs = now() - seedStarted;
      // Warm-up: JIT, and the connections the concurrent part uses.
      for (let i = 0; i < 20; i++) await target.create();
      await pool(4 * WIDTH, WIDTH, target.create);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const [done, ms] = await writeFor(target, 1, ROUND_MS);
        target.seq = [target.seq[0] + done, target.seq[1] + ms];
      }
      for (const target of targets) {
        const [done, ms] = await writeFor(target, WIDTH, ROUND_MS);
        target.conc = [target.conc[0] + done, target.conc[1] + ms];
      }
    }
  } finally {
    for (const target of targets) {
      await target.client.close();
      await target.emulator.close();
      rmSync(target.dataDir, { recursive: true, force: true });
    }
  }
  const rate = ([done, ms]) => (done * 1000) / ms;
  const [base] = targets;
  const rows = [];
  for (const [label, key] of [
    ["one at a time", "seq"],
    [`${WIDTH} in flight`, "conc"],
  ]) {
    for (const t of targets) {
      rows.push([
        `${num(t.size)} objects, ${label}: writes/s`,
        num(rate(t[key])),
        ratio(rate(t[key]), rate(base[key])),
      ]);
    }
  }
  for (const t of targets) rows.push([`seeding ${num(t.size)} objects`, num(t.seedMs, "ms"), "—"]);
  table(
    "6. Emulator writes against state size: POST /v1/tags (create), --data-dir",
    rows,
    `baseline: the same writes with ${num(STATE_SIZES[0])} objects in the state (goal: the ` +
      `${num(STATE_SIZES.at(-1))} figure at 0.67x or more).\n` +
      "objects: servers, tags, security groups, tickets and invoices in equal parts, all in the\n" +
      `writing account. ${ROUNDS} rounds of ${ROUND_MS} ms per emulator and mode, alternating.`,
  );
}
