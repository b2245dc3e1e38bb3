/**
 * The create journal is read before every create: its cost must not grow with the number of
 * creates a run already made (a 1000-tag `up` read every entry file before each create, ~half a
 * million reads). What it decides is in create.test.ts; this file counts what it reads.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { CreateJournal, requestDigest } from "../../src/resources/journal";

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});

const reads = vi.mocked(fs.readFileSync);

/** The pid of a process that has exited. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  if (pid === undefined) throw new Error("no child process");
  return pid;
}

function journalReads(dir: string): number {
  return reads.mock.calls.filter(([path]) => String(path).startsWith(dir)).length;
}

describe("CreateJournal's reads", () => {
  beforeEach(() => {
    reads.mockClear();
  });

  it("never reads this process's own entries, and a dead host's entry once", () => {
    const dir = fs.mkdtempSync(join(tmpdir(), "journal-reads-"));
    const dead = deadPid();
    for (let i = 0; i < 20; i++) {
      const entry = {
        name: `old${i}`,
        digest: "d",
        pid: dead,
        process: "gone",
        at: Date.now(),
        closedAt: Date.now(),
      };
      fs.writeFileSync(join(dir, `old${i}.json`), JSON.stringify({ ...entry, before: [], id: i }));
    }
    const journal = new CreateJournal(dir);
    for (let i = 0; i < 100; i++) {
      const ticket = journal.open(requestDigest("Tag", { name: `t${i}` }), [1, 2, 3]);
      expect(journal.orphans(requestDigest("Tag", { name: `t${i}` }))).toEqual([]);
      ticket.made(1000 + i);
      ticket.close();
    }
    expect(journal.claimedIds().size).toBe(120);
    expect(journalReads(dir)).toBe(20);
  });

  it("reads a live host's entries again each time: they may change", () => {
    const dir = fs.mkdtempSync(join(tmpdir(), "journal-reads-"));
    const entry = {
      name: "live",
      digest: "d",
      pid: process.pid,
      process: "another",
      at: Date.now(),
    };
    fs.writeFileSync(join(dir, "live.json"), JSON.stringify({ ...entry, before: [] }));
    const journal = new CreateJournal(dir);
    expect(journal.claimedIds()).toEqual(new Set());
    fs.writeFileSync(join(dir, "live.json"), JSON.stringify({ ...entry, before: [], id: 9 }));
    expect(journal.claimedIds()).toEqual(new Set([9]));
    expect(journalReads(dir)).toBe(2);
  });

  it("keeps no ids before once the answer named the object", () => {
    try {
      fs.mkdtempSync(join(tmpdir(), "journal-reads-"));
    } catch (e) {
      console.log("ERR1", (e as Error).stack);
    }
    const dir = fs.mkdtempSync(join(tmpdir(), "journal-reads-"));
    const journal = new CreateJournal(dir);
    const ticket = journal.open("d", [1, 2, 3]);
    ticket.made(4);
    const [file] = fs.readdirSync(dir);
    const written = JSON.parse(fs.readFileSync(join(dir, file ?? ""), "utf8")) as {
      before: number[];
      id: number;
    };
    expect(written).toMatchObject({ id: 4, before: [] });
  });
});
