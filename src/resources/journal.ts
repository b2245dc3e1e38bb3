/**
 * The creates a dead host left open, for rules 6 and 8 of create.ts (where it lives and why its
 * folder must be private: docs/resources.md). An open entry is a file written atomically; closing
 * appends it to this process's log in `closed/` and removes the file, so a create lists only
 * creates in flight or unfinished. Closed ids are kept a day from take-overs. An entry whose log
 * cannot be written is closed in place (`closedAt` in its file).
 */
import { createHash, randomUUID } from "node:crypto";
import { openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type FolderUse, privateDir, userDir, writePrivateFile } from "../lib/private-dir";
import { processRunning } from "../lib/process";

const JOURNAL_FOLDER: FolderUse = {
  what: "the create journal's folder",
  remedy:
    "remove it if you trust nothing in it (if another user owns it, an administrator can), or set CLOUDINFRA_JOURNAL_DIR to a folder of your own (mkdir -m 700 ~/.cloudinfra-journal && export CLOUDINFRA_JOURNAL_DIR=~/.cloudinfra-journal)",
};

const CLOSED_ENTRY_TTL_MS = 24 * 60 * 60 * 1000;
/** Entries older than this are forgotten, open or not. */
const ENTRY_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** One log per journal of a process, `<pid>.<uuid>.jsonl`. */
const CLOSED = "closed";
const LOG_SUFFIX = ".jsonl";

export interface JournalEntry {
  /** The file's name, without `.json`. */
  name: string;
  digest: string;
  kind: string;
  pid: number;
  /** The writing process's token: a pid can be reused. */
  process: string;
  at: number;
  /** Rule 1's ids; none once the answer named `id`. */
  before: readonly number[];
  id?: number;
  /** Rule 8: the first unresolved send, when the create gave up on it; `at` until then. */
  sentAt?: number;
  /** Set once the create returned to the engine. */
  closedAt?: number;
}

/** An open entry of this process, as its create goes on. */
export type JournalTicket = ReturnType<CreateJournal["open"]>;

const PROCESS = randomUUID();
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A request's identity: its kind and body, as sent. */
export function requestDigest(kind: string, body: unknown): string {
  return sha256(`${kind}\n${JSON.stringify(body)}`);
}

/** The pid that writes a closed log, from its name; `undefined` for any other file. */
function logWriter(file: string): number | undefined {
  if (!file.endsWith(LOG_SUFFIX)) return undefined;
  const pid = Number(file.slice(0, file.indexOf(".")));
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** `read()`, or `fallback` when it throws: a file gone, unreadable or cut short is no entry. */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function expired({ at, closedAt }: JournalEntry, now = Date.now()): boolean {
  return (
    now - at > ENTRY_TTL_MS || (closedAt === undefined ? 0 : now - closedAt) > CLOSED_ENTRY_TTL_MS
  );
}

/** A closed log's entries, skipping a line cut short by a kill or not one of ours. */
function parseLog(text: string): JournalEntry[] {
  return text.split("\n").flatMap((line) => {
    const entry = readOr(() => JSON.parse(line) as Partial<JournalEntry> | null, null);
    const whole =
      typeof entry?.name === "string" &&
      typeof entry.id === "number" &&
      typeof entry.closedAt === "number";
    return whole ? [entry as JournalEntry] : [];
  });
}

/**
 * The creates of one project against one account. A create reads only the folder's listing:
 * this process's entries are in memory, a dead process's entries and logs are read once.
 */
export class CreateJournal {
  readonly #closedDir: string;
  readonly #logName = `${process.pid}.${randomUUID()}${LOG_SUFFIX}`;
  #log: number | undefined;
  readonly #mine = new Map<string, JournalEntry>();
  readonly #closedMine: JournalEntry[] = [];
  /** Open entries of processes found dead (a pid reused since cannot bring them back), by name. */
  readonly #dead = new Map<string, JournalEntry>();
  /** Closed logs of processes found dead, by file name. */
  readonly #deadLogs = new Map<string, JournalEntry[]>();
  #swept = false;
  #trusted = false;

  constructor(readonly dir: string) {
    this.#closedDir = join(dir, CLOSED);
  }

  /** One per provider session. */
  static forProject(cwd: string, endpoint: string, apiKey: string): CreateJournal {
    const scope = sha256(`${cwd}\n${endpoint}\n${apiKey}`);
    const root = process.env["CLOUDINFRA_JOURNAL_DIR"] || join(userDir(), "journal");
    return new CreateJournal(join(root, scope.slice(0, 24)));
  }

  /** Open entries for `digest` whose process is gone. */
  orphans(digest: string): JournalEntry[] {
    const folder = this.#folder();
    if (!this.#swept) this.#closed(folder, false);
    const left = folder.filter(
      (e) => e.digest === digest && e.closedAt === undefined && this.#dead.has(e.name),
    );
    if (left.length === 0) return left;
    // A process killed between closing an entry and removing its file left it in the folder.
    const closed = new Set(this.#closed(folder).map((e) => e.name));
    return left.filter((e) => {
      if (closed.has(e.name)) this.forget(e);
      return !closed.has(e.name);
    });
  }

  /** Ids of `kind` handed to the engine or made by live processes. */
  claimedIds(kind: string): Set<number> {
    const folder = this.#folder();
    const ofKind = (e: JournalEntry) => e.id !== undefined && e.kind === kind;
    const claimed = [
      ...folder.filter((e) => ofKind(e) && (e.closedAt !== undefined || !this.#dead.has(e.name))),
      ...this.#closed(folder).filter((e) => ofKind(e) && !expired(e)),
    ];
    return new Set(claimed.flatMap((e) => e.id ?? []));
  }

  /** Writes an open entry before a request is sent. */
  open(kind: string, digest: string, before: Iterable<number>) {
    this.#trust();
    const entry: JournalEntry = {
      name: randomUUID(),
      digest,
      kind,
      pid: process.pid,
      process: PROCESS,
      at: Date.now(),
      before: [...before],
    };
    this.#write(entry);
    return {
      made: (id: number) => {
        entry.id = id;
        entry.before = [];
        this.#write(entry);
      },
      /** The create gives up with sends unresolved since `sentAt`: the entry stays open. */
      unresolvedSince: (sentAt: number) => {
        if (sentAt === entry.at) return;
        entry.sentAt = sentAt;
        this.#write(entry);
      },
      /** The create returned to the engine. */
      close: () => {
        if (entry.closedAt !== undefined) return;
        entry.closedAt = Date.now();
        // The closed entry first, then the open file goes: a kill in between leaves an open file
        // that its closed entry shadows, never an orphan.
        if (entry.id === undefined || this.#append(entry)) this.forget(entry);
        else this.#write(entry);
      },
    };
  }

  /** An open entry was dealt with (taken over, proved to have made nothing, closed). */
  forget(entry: JournalEntry): void {
    this.#mine.delete(entry.name);
    this.#dead.delete(entry.name);
    rmSync(join(this.dir, `${entry.name}.json`), { force: true });
  }

  /** The folder's entries: open ones, and ones closed in place. */
  #folder(): JournalEntry[] {
    this.#trust();
    const files = readOr(() => readdirSync(this.dir), []).filter((file) => file.endsWith(".json"));
    const names = new Set(files.map((file) => file.slice(0, -".json".length)));
    const out: JournalEntry[] = [];
    for (const name of names) {
      const entry = this.#mine.get(name) ?? this.#dead.get(name) ?? this.#read(name);
      if (entry === undefined) continue;
      if (expired(entry)) this.forget(entry);
      else out.push(entry);
    }
    for (const name of this.#dead.keys()) if (!names.has(name)) this.#dead.delete(name);
    return out;
  }

  /**
   * Every closed entry, expired ones included (an open file beside its closed entry stays
   * closed); with `read` false, only this journal's. A log is removed once its writer is dead,
   * its last entry expired and none of its writer's entries is left open in `folder`.
   */
  #closed(folder: readonly JournalEntry[], read = true): JournalEntry[] {
    this.#swept = true;
    const out = [...this.#closedMine];
    const files = new Set(readOr(() => readdirSync(this.#closedDir), []));
    for (const file of this.#deadLogs.keys()) if (!files.has(file)) this.#deadLogs.delete(file);
    for (const file of files) {
      const pid = logWriter(file);
      if (pid === undefined || file === this.#logName) continue;
      let entries = this.#deadLogs.get(file);
      if (entries === undefined) {
        const path = join(this.#closedDir, file);
        // Checked before reading: a log read after its writer died is whole.
        const dead = !processRunning(pid);
        const old = () => Date.now() - statSync(path).mtimeMs > CLOSED_ENTRY_TTL_MS;
        if (dead && readOr(old, false) && !folder.some((e) => e.pid === pid)) {
          rmSync(path, { force: true });
          continue;
        }
        if (!read) continue;
        entries = readOr(() => parseLog(readFileSync(path, "utf8")), undefined);
        if (entries === undefined) continue;
        if (dead) this.#deadLogs.set(file, entries);
      }
      out.push(...entries);
    }
    return out;
  }

  /** Another process's entry, remembered once that process is gone. */
  #read(name: string): JournalEntry | undefined {
    const path = join(this.dir, `${name}.json`);
    const entry = readOr(() => JSON.parse(readFileSync(path, "utf8")) as JournalEntry, undefined);
    if (entry === undefined) return undefined;
    if (entry.process !== PROCESS && !processRunning(entry.pid)) this.#dead.set(name, entry);
    return entry;
  }

  /** `false` when the log could not be written. */
  #append(entry: JournalEntry): boolean {
    try {
      const path = join(this.#closedDir, this.#logName);
      this.#log ??= this.#inFolders(() => openSync(path, "a", 0o600));
      writeSync(this.#log, `${JSON.stringify(entry)}\n`);
    } catch {
      return false;
    }
    this.#closedMine.push(entry);
    return true;
  }

  #write(entry: JournalEntry): void {
    this.#mine.set(entry.name, { ...entry });
    try {
      const path = join(this.dir, `${entry.name}.json`);
      this.#inFolders(() => writePrivateFile(path, JSON.stringify(entry)));
    } catch {
      // A journal that cannot be written only loses the take-over after a crash.
    }
  }

  /** Makes or checks the folders once: a refused folder fails the create (UnsafeFolderError). */
  #trust(): void {
    if (this.#trusted) return;
    privateDir(this.#closedDir, JOURNAL_FOLDER);
    this.#trusted = true;
  }

  /** Runs `write`, making the folders again if they went missing. */
  #inFolders<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      privateDir(this.#closedDir, JOURNAL_FOLDER);
      return write();
    }
  }
}
