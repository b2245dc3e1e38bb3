// 5. Emulator durable write: POST /v1/tags into an emulator with a data dir (one SQLite
// transaction per request, its WAL fsynced before the answer; src/emulator/store/database.ts)
// against a memory-only emulator (the same database in memory). One at a time, then 8 in flight.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  answered,
  clientFor,
  now,
  num,
  pool,
  ratio,
  startBenchEmulator,
  table,
} from "./support.mjs";

const SEQUENTIAL = 200;
const CONCURRENT = 400;
const WIDTH = 8;
/** Sequential requests alternate between the two emulators in blocks of this size. */
const BLOCK = 25;

export async function benchDurableWrite() {
  const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-bench-"));
  const targets = [];
  try {
    for (const [label, options] of [
      ["memory", {}],
      ["data dir", { dataDir }],
    ]) {
      const emulator = await startBenchEmulator(options);
      targets.push({ label, emulator, client: clientFor(emulator), seq: 0, conc: 0, n: 0 });
    }
    const create = (t) =>
      t.client.tags.create({ name: `bench-${t.n++}`, color: "#112233", data: "bench" });

    // Warm-up, also opening the 8 connections the concurrent part uses (TLS handshakes
    // would otherwise be measured there).
    for (const t of targets) {
      for (let i = 0; i < 10; i++) await create(t);
      await pool(2 * WIDTH, WIDTH, () => create(t));
    }

    for (let done = 0; done < SEQUENTIAL; done += BLOCK) {
      for (const t of targets) {
        const t0 = now();
        for (let i = 0; i < BLOCK; i++) await create(t);
        t.seq += now() - t0;
      }
    }
    for (const t of targets) {
      const t0 = now();
      await pool(CONCURRENT, WIDTH, () => create(t));
      t.conc = now() - t0;
    }

    const [memory, disk] = targets;
    for (const t of targets) {
      const made = answered(t.emulator, "POST", "/v1/tags");
      if (made !== t.n) throw new Error(`${t.label}: ${made} answers for ${t.n} creates`);
    }
    const rate = (count, ms) => (count * 1000) / ms;
    const seqRate = (t) => rate(SEQUENTIAL, t.seq);
    const concRate = (t) => rate(CONCURRENT, t.conc);
    const stateBytes = ["state.db", "state.db-wal"]
      .map((name) => statSync(join(dataDir, name), { throwIfNoEntry: false })?.size ?? 0)
      .reduce((a, b) => a + b, 0);
    table(
      "5. Emulator durable write: POST /v1/tags (create)",
      [
        ["--memory, one at a time: requests/s", num(seqRate(memory)), "1.00x"],
        [
          "--data-dir, one at a time: requests/s",
          num(seqRate(disk)),
          ratio(seqRate(disk), seqRate(memory)),
        ],
        [
          "--data-dir, one at a time: ms/request",
          num(disk.seq / SEQUENTIAL),
          ratio(disk.seq, memory.seq),
        ],
        [`--memory, ${WIDTH} in flight: requests/s`, num(concRate(memory)), "1.00x"],
        [
          `--data-dir, ${WIDTH} in flight: requests/s`,
          num(concRate(disk)),
          ratio(concRate(disk), concRate(memory)),
        ],
        ["tags created per emulator", num(disk.n), "—"],
        ["state.db and its WAL at the end", num(stateBytes, "bytes"), "—"],
      ],
      "baseline: the same requests to an emulator in memory mode (in-process, like startEmulator).\n" +
        `data dir: ${tmpdir()} (a commit writes the rows a request changed and fsyncs the WAL;\n` +
        "bench state-size shows it does not grow with the state). One at a time alternates blocks of " +
        `${BLOCK} between the two.`,
    );
  } finally {
    for (const t of targets) {
      await t.client.close();
      await t.emulator.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
