/**
 * The create journal is read before every create: its cost must not grow with the number of
 * creates a run already made (a 1000-tag `up` read every entry file before each create, ~half a
 * million reads). What it decides is in create.test.ts; this file counts what it reads.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { CreateJournal, requestDigest } from "../../src/resources/journal";
import { deadPid } from "../support/dead-process";
import { tempDir } from "../support/temp-dir";

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, readFileSync: vi.fn(real.readFileSync), readdirSync: vi.fn(real.readdirSync) };
});

const reads = vi.mocked(fs.readFileSync);
const listings = vi.mocked(fs.readdirSync);
const DAY = 24 * 60 * 60 * 1000;

function journalReads(dir: string): number {
  return reads.mock.calls.filter(([path]) => String(path).startsWith(dir)).length;
}

/** What `run` read of the journal in `dir`: files read, folders listed, names in those lists. */
function cost(dir: string, run: () => void): { reads: number; listings: number; listed: number } {
  reads.mockClear();
  listings.mockClear();
  run();
  let listed = 0;
  listings.mock.calls.forEach(([path], i) => {
    const result = listings.mock.results[i];
    if (String(path).startsWith(dir) && result?.type === "return") {
      listed += (result.value as unknown[]).length;
    }
  });
  const inDir = listings.mock.calls.filter(([path]) => String(path).startsWith(dir)).length;
  return { reads: journalReads(dir), listings: inDir, listed };
}

/** A closed log as a host of this version leaves it in `closed/`. */
function writeLog(dir: string, file: string, entries: object[], modifiedAt = Date.now()): void {
  fs.mkdirSync(join(dir, "closed"), { recursive: true });
  const path = join(dir, "closed", file);
  fs.writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  fs.utimesSync(path, modifiedAt / 1000, modifiedAt / 1000);
}

describe("CreateJournal's reads", () => {
  beforeEach(() => {
    reads.mockClear();
  });

  it("never reads this process's own entries, and a dead host's entry once", () => {
    const dir = tempDir("journal-reads-");
    const dead = deadPid();
    for (let i = 0; i < 20; i++) {
      const entry = {
        name: `old${i}`,
        digest: "d",
        kind: "Tag",
        pid: dead,
        process: "gone",
        at: Date.now(),
        closedAt: Date.now(),
      };
      fs.writeFileSync(join(dir, `old${i}.json`), JSON.stringify({ ...entry, before: [], id: i }));
    }
    const journal = new CreateJournal(dir);
    for (let i = 0; i < 100; i++) {
      const ticket = journal.open("Tag", requestDigest("Tag", { name: `t${i}` }), [1, 2, 3]);
      expect(journal.orphans(requestDigest("Tag", { name: `t${i}` }))).toEqual([]);
      ticket.made(1000 + i);
      ticket.close();
    }
    expect(journal.claimedIds("Tag").size).toBe(120);
    expect(journalReads(dir)).toBe(20);
  });

  it("reads a live host's entries again each time: they may change", () => {
    const dir = tempDir("journal-reads-");
    const entry = {
      name: "live",
      digest: "d",
      kind: "Tag",
      pid: process.pid,
      process: "another",
      at: Date.now(),
    };
    fs.writeFileSync(join(dir, "live.json"), JSON.stringify({ ...entry, before: [] }));
    const journal = new CreateJournal(dir);
    expect(journal.claimedIds("Tag")).toEqual(new Set());
    fs.writeFileSync(join(dir, "live.json"), JSON.stringify({ ...entry, before: [], id: 9 }));
    expect(journal.claimedIds("Tag")).toEqual(new Set([9]));
    expect(journalReads(dir)).toBe(2);
  });

  it("keeps no ids before once the answer named the object", () => {
    const dir = tempDir("journal-reads-");
    const journal = new CreateJournal(dir);
    const ticket = journal.open("Tag", "d", [1, 2, 3]);
    ticket.made(4);
    // The folder holds closed/ too, listed in no set order.
    const [file] = fs.readdirSync(dir).filter((name) => name.endsWith(".json"));
    const written = JSON.parse(fs.readFileSync(join(dir, file ?? ""), "utf8")) as {
      before: number[];
      id: number;
    };
    expect(written).toMatchObject({ id: 4, before: [] });
  });

  it("costs each create the same however many creates came before, in this run and earlier ones", () => {
    const dir = tempDir("journal-reads-");
    const dead = deadPid();
    const earlier = {
      digest: "d",
      kind: "Tag",
      pid: dead,
      process: "gone",
      at: Date.now(),
      before: [],
    };
    // An earlier run closed its entries into its log.
    const logged = Array.from({ length: 500 }, (_, i) => ({
      ...earlier,
      name: `e${i}`,
      id: 1000 + i,
      closedAt: Date.now(),
    }));
    writeLog(dir, `${dead}.earlier.jsonl`, logged);

    const journal = new CreateJournal(dir);
    const costs = Array.from({ length: 400 }, (_, i) =>
      cost(dir, () => {
        const digest = requestDigest("Tag", { name: `t${i}` });
        expect(journal.orphans(digest)).toEqual([]);
        const ticket = journal.open("Tag", digest, new Set([1, 2, 3]));
        ticket.made(5000 + i);
        ticket.close();
      }),
    );
    // Every create after the first (which sweeps closed/) lists the folder, which holds nothing
    // but closed/, and reads no file.
    expect(new Set(costs.slice(1).map((c) => JSON.stringify(c)))).toEqual(
      new Set([JSON.stringify({ reads: 0, listings: 1, listed: 1 })]),
    );
    // Nothing was forgotten: every id handed to the engine stays claimed.
    expect(journal.claimedIds("Tag").size).toBe(500 + 400);
  });

  /** The open entry of a Tag create whose host, `pid`, is gone. */
  const cutEntry = (pid: number) => {
    return { name: "cut", digest: "d", kind: "Tag", pid, process: "gone", at: Date.now() };
  };

  it("takes no entry for an orphan when its host closed it and was killed before removing its file", () => {
    const dir = tempDir("journal-reads-");
    const dead = deadPid();
    const entry = cutEntry(dead);
    fs.writeFileSync(join(dir, "cut.json"), JSON.stringify({ ...entry, before: [], id: 7 }));
    writeLog(dir, `${dead}.x.jsonl`, [{ ...entry, before: [], id: 7, closedAt: Date.now() }]);
    const journal = new CreateJournal(dir);
    expect(journal.orphans("d")).toEqual([]);
    expect(journal.claimedIds("Tag")).toEqual(new Set([7]));
    expect(fs.readdirSync(dir)).toEqual(["closed"]);
  });

  it("takes an entry for an orphan when its host was killed while closing it", () => {
    const dir = tempDir("journal-reads-");
    const dead = deadPid();
    const entry = cutEntry(dead);
    fs.writeFileSync(join(dir, "cut.json"), JSON.stringify({ ...entry, before: [], id: 7 }));
    fs.mkdirSync(join(dir, "closed"));
    const line = JSON.stringify({ ...entry, before: [], id: 7, closedAt: Date.now() });
    fs.writeFileSync(join(dir, "closed", `${dead}.x.jsonl`), line.slice(0, 30));
    const journal = new CreateJournal(dir);
    expect(journal.orphans("d").map((e) => e.id)).toEqual([7]);
    expect(journal.claimedIds("Tag")).toEqual(new Set());
  });

  it("removes a dead host's closed log once a day old, when a process first uses the journal", () => {
    const dir = tempDir("journal-reads-");
    const dead = deadPid();
    const old = Date.now() - 2 * DAY;
    const closed = (name: string, id: number, at: number) => ({
      name,
      digest: "d",
      kind: "Tag",
      pid: dead,
      process: "gone",
      at,
      before: [],
      id,
      closedAt: at,
    });
    writeLog(dir, `${dead}.old.jsonl`, [closed("a", 1, old)], old);
    writeLog(dir, `${dead}.recent.jsonl`, [closed("b", 2, Date.now())]);
    // A live host's log stays, whatever its age; its day-old entries claim nothing any more.
    writeLog(dir, `${process.pid}.live.jsonl`, [closed("c", 3, old)], old);
    const journal = new CreateJournal(dir);
    expect(journal.orphans("other")).toEqual([]);
    expect(new Set(fs.readdirSync(join(dir, "closed")))).toEqual(
      new Set([`${dead}.recent.jsonl`, `${process.pid}.live.jsonl`]),
    );
    expect(journal.claimedIds("Tag")).toEqual(new Set([2]));
  });
});
