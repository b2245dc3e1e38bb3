/**
 * What a provider host remembers of its creates after it dies: {@link CreateJournal}, for rules 6
 * and 8 of create.ts. A host killed mid-create (kill -9, an OOM kill, a crash while a server
 * provisions) never tells the engine what it made, and the next `up` creates the resource again.
 * So each create is written down before it is sent (the request's identity, the ids of the kind's
 * objects before it), again when its answer names the object, and closed once it returned to the
 * engine. An entry left open by a process that is gone is a create nobody finished: the next
 * create of the same request takes over what it made instead of making another.
 *
 * Where the promise holds: entries live under `CLOUDINFRA_JOURNAL_DIR`, by default the user's own
 * folder in the OS temporary directory (`pulumi-cloudinfra-<uid>/journal`), one folder per project
 * directory, endpoint and API key (never the key itself). Those folders follow the rule of
 * lib/private-dir.ts: a folder another user made, or one others can write, is refused (the create
 * fails, naming it) rather than trusted, since an entry planted there would make a create take
 * over an object it never made. The next `up` of the same project on the same machine finds them; a CI runner made new
 * for each run does not, unless the workflow keeps `CLOUDINFRA_JOURNAL_DIR` between runs (a
 * cache). Without the journal only the service's own rules remain: names unique per account
 * (tags, roles, security groups, users) and keys held once fail the second create with a 409
 * naming the first object; servers and generated keys can be made twice (docs/resources.md).
 * The engine's own record of an interrupted create (a pending operation in the state) carries
 * the inputs but no id, and a dynamic provider never sees it, so it cannot serve instead.
 *
 * An open entry is a small file of its own in that folder, written atomically; closing it
 * appends it to this process's log in `closed/`, then removes the file. So the folder holds only
 * creates in flight and creates nobody finished, and the look before each create lists just
 * that, however many creates were made before. Closed entries are kept for a day: the ids they
 * name were handed to the engine and are never taken over. When the log cannot be written, an
 * entry is closed in place (`closedAt` in its file) and moved to `closed/` when next found.
 */
import { createHash, randomUUID } from "node:crypto";
import { openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type FolderUse, privateDir, userDir, writePrivateFile } from "../lib/private-dir";
import { processRunning } from "../lib/process";

/**
 * Where journals live unless `CLOUDINFRA_JOURNAL_DIR` says otherwise: the user's own folder in
 * the OS temporary directory, which lasts as long as the machine (a developer's; not a CI runner
 * made new for each run, which must keep `CLOUDINFRA_JOURNAL_DIR` between runs for take-overs to
 * work there).
 */
function journalRoot(): string {
  const dir = process.env["CLOUDINFRA_JOURNAL_DIR"];
  return dir !== undefined && dir !== "" ? dir : join(userDir(), "journal");
}

/** What a refusal of a journal's folder says (lib/private-dir.ts). */
const JOURNAL_FOLDER: FolderUse = {
  what: "the create journal's folder",
  remedy:
    "remove it if you trust nothing in it (if another user owns it, an administrator can), or set CLOUDINFRA_JOURNAL_DIR to a folder of your own (mkdir -m 700 ~/.cloudinfra-journal && export CLOUDINFRA_JOURNAL_DIR=~/.cloudinfra-journal)",
};

/** How long closed entries are kept (their ids are excluded from take-overs meanwhile). */
const CLOSED_ENTRY_TTL_MS = 24 * 60 * 60 * 1000;
/** Entries older than this are forgotten, open or not. */
const ENTRY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The subfolder of closed entries: one log per journal of a process, `<pid>.<uuid>.jsonl`. */
const CLOSED = "closed";
const LOG_SUFFIX = ".jsonl";

/** One create as the journal holds it. */
export interface JournalEntry {
  /** The file's name, without `.json`. */
  name: string;
  /** The request's identity: the kind and what was sent. */
  digest: string;
  /** The kind, whose ids the entry's id is among; none in an older version's entries. */
  kind?: string;
  /** The process that sent it. */
  pid: number;
  /** That process's token: a pid can be reused. */
  process: string;
  /** When it was written (ms since the epoch). */
  at: number;
  /** Ids of the kind's live objects before the request. */
  before: readonly number[];
  /** The id the answer named, once known. */
  id?: number;
  /**
   * When the first send that may have made an object nobody found was sent (ms, this machine's
   * clock), written when the create gave up on it; `at` (just before the first send) until then.
   * A 409 naming an object made before it names someone else's (create.ts, recipe.unique).
   */
  sentAt?: number;
  /** Set once the create returned to the engine. */
  closedAt?: number;
}

/** An open entry of this process: what to record as the create goes on. */
export interface JournalTicket {
  /** The answer named this object. */
  made(id: number): void;
  /**
   * The create gives up with sends unresolved since `sentAt` (see {@link JournalEntry.sentAt}):
   * the entry stays open for the next run.
   */
  unresolvedSince(sentAt: number): void;
  /**
   * The create returned to the engine (with an id, or failing without one); `id`, when given,
   * is the object it made (as {@link JournalTicket.made} would record it).
   */
  close(id?: number): void;
}

const PROCESS = randomUUID();

/** `digest` of a request: its kind and body, as sent. */
export function requestDigest(kind: string, body: unknown): string {
  return createHash("sha256")
    .update(`${kind}\n${JSON.stringify(body)}`)
    .digest("hex");
}

/** The pid that writes a closed log, from its name; `undefined` for any other file. */
function logWriter(file: string): number | undefined {
  if (!file.endsWith(LOG_SUFFIX)) return undefined;
  const pid = Number(file.slice(0, file.indexOf(".")));
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** A closed log's entries; a line cut short by a kill, or not one of ours, is skipped. */
function parseLog(text: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line) as Partial<JournalEntry> | null;
      if (
        typeof entry?.name === "string" &&
        typeof entry.id === "number" &&
        typeof entry.closedAt === "number"
      ) {
        out.push(entry as JournalEntry);
      }
    } catch {
      // Cut short: its create's file is still in the folder, and still open.
    }
  }
  return out;
}

/** An entry as a file or a log line holds it, with its ids before serialized already. */
function serialize(entry: JournalEntry, before: string): string {
  return `${JSON.stringify({ ...entry, before: undefined }).slice(0, -1)},"before":${before}}`;
}

/**
 * The creates of one project against one account, on disk.
 *
 * A create reads only the folder's listing, which holds the creates in flight and those nobody
 * finished: this process's own entries are known from memory, entries of a process found dead
 * are read once (nothing changes them any more), and closed entries are read only when a dead
 * process left one of the same request open. One journal per folder and process
 * ({@link CreateJournal.forProject}).
 */
export class CreateJournal {
  readonly #dir: string;
  readonly #closedDir: string;
  /** This journal's log in `closed/`. */
  readonly #logName = `${process.pid}.${randomUUID()}${LOG_SUFFIX}`;
  /** Its file descriptor, once opened. */
  #log: number | undefined;
  /** Open entries this process wrote, as last written, by name. */
  readonly #mine = new Map<string, JournalEntry>();
  /** What this journal appended to its log. */
  readonly #closedMine: JournalEntry[] = [];
  /** Open entries of processes found dead, by name: read once. */
  readonly #settled = new Map<string, JournalEntry>();
  /** Closed logs of processes found dead, by file name: read once. */
  readonly #settledLogs = new Map<string, JournalEntry[]>();
  /** Whether expired closed logs were removed: once, when this process first uses the journal. */
  #swept = false;
  /** Whether the folders passed the rule of lib/private-dir.ts (checked on first use). */
  #trusted = false;
  /**
   * Ids before, serialized once per set: the creates that share one list of the kind (create.ts)
   * share its set, so a create does not pay for the size of the kind.
   */
  readonly #serializedBefore = new WeakMap<object, { ids: readonly number[]; json: string }>();

  constructor(dir: string) {
    this.#dir = dir;
    this.#closedDir = join(dir, CLOSED);
  }

  /**
   * The journal of the project in `cwd` for these settings (the key is only hashed), under
   * `CLOUDINFRA_JOURNAL_DIR` or the user's own folder. One per provider session (session.ts): a
   * second journal of the same folder in one process would not know the first one's entries are
   * alive.
   */
  static forProject(cwd: string, endpoint: string, apiKey: string): CreateJournal {
    const scope = createHash("sha256").update(`${cwd}\n${endpoint}\n${apiKey}`).digest("hex");
    return new CreateJournal(join(journalRoot(), scope.slice(0, 24)));
  }

  /** The folder of this journal's entries: for messages that send a user to it. */
  get dir(): string {
    return this.#dir;
  }

  #beforeOf(before: ReadonlySet<number> | readonly number[]): {
    ids: readonly number[];
    json: string;
  } {
    let known = this.#serializedBefore.get(before);
    if (known === undefined) {
      const ids = [...before];
      known = { ids, json: JSON.stringify(ids) };
      this.#serializedBefore.set(before, known);
    }
    return known;
  }

  /** Every entry, open and closed; unreadable files and expired entries are dropped. */
  entries(): JournalEntry[] {
    const open = this.#folder();
    const closed = this.#closed(open).filter((e) => !this.#expired(e));
    const names = new Set(closed.map((e) => e.name));
    return [...open.filter((e) => !names.has(e.name)), ...closed].sort((a, b) => a.at - b.at);
  }

  /** Open entries for `digest` whose process is gone: creates nobody finished. */
  orphans(digest: string): JournalEntry[] {
    const folder = this.#folder();
    if (!this.#swept) this.#closed(folder, false);
    const left = folder.filter(
      (e) => e.digest === digest && e.closedAt === undefined && this.#gone(e),
    );
    if (left.length === 0) return left;
    // A process killed between closing an entry and removing its file left it in the folder.
    const closed = new Set(this.#closed(folder).map((e) => e.name));
    return left.filter((e) => {
      if (closed.has(e.name)) this.forget(e);
      return !closed.has(e.name);
    });
  }

  /**
   * Ids of `kind` that creates handed to the engine (closed entries), or that live processes
   * made. Ids are numbered per kind; an older version's entry, which names no kind, counts for
   * every kind.
   */
  claimedIds(kind: string): Set<number> {
    const folder = this.#folder();
    const ofKind = (e: JournalEntry) => e.id !== undefined && (e.kind ?? kind) === kind;
    const claimed = [
      ...folder.filter((e) => ofKind(e) && (e.closedAt !== undefined || !this.#gone(e))),
      ...this.#closed(folder).filter((e) => ofKind(e) && !this.#expired(e)),
    ];
    return new Set(claimed.flatMap((e) => e.id ?? []));
  }

  /**
   * Writes an open entry before a request is sent. `before` must not change afterwards: it is
   * serialized once, and shared by the creates that pass the same set.
   */
  open(
    kind: string,
    digest: string,
    before: ReadonlySet<number> | readonly number[],
  ): JournalTicket {
    this.#trust();
    const { ids, json } = this.#beforeOf(before);
    const entry: JournalEntry = {
      name: randomUUID(),
      digest,
      kind,
      pid: process.pid,
      process: PROCESS,
      at: Date.now(),
      before: ids,
    };
    this.#write(entry, json);
    return {
      made: (id) => {
        entry.id = id;
        // A take-over of an entry with an id needs nothing else: the ids before are dropped.
        entry.before = [];
        this.#write(entry, "[]");
      },
      unresolvedSince: (sentAt) => {
        if (sentAt === entry.at) return;
        entry.sentAt = sentAt;
        this.#write(entry, entry.id === undefined ? json : "[]");
      },
      close: (id) => {
        if (entry.closedAt !== undefined) return;
        if (id !== undefined) {
          entry.id = id;
          entry.before = [];
        }
        entry.closedAt = Date.now();
        // The closed entry first, then the open file goes: a kill in between leaves an open file
        // that its closed entry shadows, never an orphan.
        if (entry.id === undefined || this.#append(entry)) this.forget(entry);
        else this.#write(entry, "[]");
      },
    };
  }

  /** Records that an open entry was dealt with (taken over, proved to have made nothing, closed). */
  forget(entry: JournalEntry): void {
    this.#mine.delete(entry.name);
    this.#settled.delete(entry.name);
    rmSync(join(this.#dir, `${entry.name}.json`), { force: true });
  }

  /**
   * The folder's entries: open ones, and ones closed in place (moved to `closed/` now). Expired
   * entries are removed.
   */
  #folder(): JournalEntry[] {
    this.#trust();
    let files: string[];
    try {
      files = readdirSync(this.#dir);
    } catch {
      return [];
    }
    const out: JournalEntry[] = [];
    const listed = new Set<string>();
    for (const file of files) {
      if (!file.endsWith(".json")) continue;
      const name = file.slice(0, -".json".length);
      listed.add(name);
      const entry = this.#mine.get(name) ?? this.#settled.get(name) ?? this.#read(name);
      if (entry === undefined) continue;
      if (this.#expired(entry)) {
        this.forget(entry);
        continue;
      }
      // Closed in place (when the log could not be written): it keeps its id from take-overs
      // wherever it is, and leaves the folder once the log has it.
      if (entry.closedAt !== undefined && this.#append(entry)) this.forget(entry);
      out.push(entry);
    }
    for (const name of this.#settled.keys()) if (!listed.has(name)) this.#settled.delete(name);
    return out;
  }

  /**
   * Every closed entry in `closed/`, expired ones included (an entry left open beside its closed
   * one stays closed); with `read` false, only the mine. A log is removed once its writer is
   * dead, its last entry expired and no entry of its writer is left open in `folder`.
   */
  #closed(folder: readonly JournalEntry[], read = true): JournalEntry[] {
    this.#swept = true;
    const out = [...this.#closedMine];
    let files: string[];
    try {
      files = readdirSync(this.#closedDir);
    } catch {
      return out;
    }
    const listed = new Set(files);
    for (const file of this.#settledLogs.keys())
      if (!listed.has(file)) this.#settledLogs.delete(file);
    for (const file of files) {
      const pid = logWriter(file);
      if (pid === undefined || file === this.#logName) continue;
      let entries = this.#settledLogs.get(file);
      if (entries === undefined) {
        const path = join(this.#closedDir, file);
        // Checked before reading: a log read after its writer died is whole.
        const dead = !processRunning(pid);
        if (dead && this.#expiredLog(path) && !folder.some((e) => e.pid === pid)) {
          rmSync(path, { force: true });
          continue;
        }
        if (!read) continue;
        try {
          entries = parseLog(readFileSync(path, "utf8"));
        } catch {
          continue;
        }
        if (dead) this.#settledLogs.set(file, entries);
      }
      out.push(...entries);
    }
    return out;
  }

  /** Whether a log's last write is older than closed entries are kept. */
  #expiredLog(path: string): boolean {
    try {
      return Date.now() - statSync(path).mtimeMs > CLOSED_ENTRY_TTL_MS;
    } catch {
      return false;
    }
  }

  #expired(entry: JournalEntry): boolean {
    const now = Date.now();
    return (
      now - entry.at > ENTRY_TTL_MS ||
      (entry.closedAt !== undefined && now - entry.closedAt > CLOSED_ENTRY_TTL_MS)
    );
  }

  /** An entry of another process, remembered once that process is gone. */
  #read(name: string): JournalEntry | undefined {
    let entry: JournalEntry;
    try {
      entry = JSON.parse(readFileSync(join(this.#dir, `${name}.json`), "utf8")) as JournalEntry;
    } catch {
      // Written by a newer version: skip.
      return undefined;
    }
    if (entry.process !== PROCESS && !processRunning(entry.pid)) this.#settled.set(name, entry);
    return entry;
  }

  /** Whether the process that wrote `entry` is gone (a pid reused since cannot bring it back). */
  #gone(entry: JournalEntry): boolean {
    return (
      entry.process !== PROCESS && (this.#settled.has(entry.name) || !processRunning(entry.pid))
    );
  }

  /** Appends a closed entry to this journal's log; `false` when it could not be written. */
  #append(entry: JournalEntry): boolean {
    try {
      if (this.#log === undefined) {
        const path = join(this.#closedDir, this.#logName);
        this.#log = this.#inFolders(() => openSync(path, "a", 0o600));
      }
      writeSync(this.#log, `${serialize(entry, "[]")}\n`);
    } catch {
      return false;
    }
    this.#closedMine.push(entry);
    return true;
  }

  /** Writes an open entry's file, whole or not at all. */
  #write(entry: JournalEntry, before: string): void {
    this.#mine.set(entry.name, { ...entry });
    try {
      const path = join(this.#dir, `${entry.name}.json`);
      this.#inFolders(() => writePrivateFile(path, serialize(entry, before)));
    } catch {
      // A journal that cannot be written only loses the take-over after a crash; the create
      // itself must not fail for it.
    }
  }

  /**
   * Makes the journal's folders, or checks those found, once: a folder the rule refuses fails
   * the create that asked (UnsafeFolderError), before anything is read or written there.
   */
  #trust(): void {
    if (this.#trusted) return;
    privateDir(this.#closedDir, JOURNAL_FOLDER);
    this.#trusted = true;
  }

  /** Runs `write`, making the journal's folders again when they went missing meanwhile. */
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
