/**
 * What a provider host remembers of its creates after it dies: {@link CreateJournal}.
 *
 * A host killed in the middle of a create (kill -9, an OOM kill, a crash while a server
 * provisions) never tells the engine what it made: the engine records nothing, and the next `up`
 * creates the resource again. Where the service's names are unique the second create fails
 * naming the first object; where they are not (servers, generated keys) it would silently make a
 * second one. So each create is written down on disk before it is sent (the request's identity,
 * the ids of the kind's objects before it) and again when its answer names the object, and the
 * entry is closed once the create has returned to the engine. An entry left open by a process
 * that is gone is a create nobody finished: the next create of the same request, in a new host,
 * takes over what that one made (see create.ts), instead of making another.
 *
 * Entries live in the OS temporary directory, one folder per project directory, endpoint and API
 * key (never the key itself), one small file per create, written atomically. Closed entries are
 * kept for a day: the ids they name were handed to the engine and are never taken over.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How long closed entries are kept (their ids are excluded from take-overs meanwhile). */
export const CLOSED_ENTRY_TTL_MS = 24 * 60 * 60 * 1000;
/** Entries older than this are forgotten, open or not. */
export const ENTRY_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** One create as the journal holds it. */
export interface JournalEntry {
  /** The file's name, without `.json`. */
  name: string;
  /** The request's identity: the kind and what was sent. */
  digest: string;
  /** The process that sent it. */
  pid: number;
  /** That process's token: a pid can be reused. */
  process: string;
  /** When it was written (ms since the epoch). */
  at: number;
  /** Ids of the kind's live objects before the request. */
  before: number[];
  /** The id the answer named, once known. */
  id?: number;
  /** Set once the create returned to the engine. */
  closedAt?: number;
}

/** An open entry of this process: what to record as the create goes on. */
export interface JournalTicket {
  /** The answer named this object. */
  made(id: number): void;
  /**
   * The create returned to the engine (with an id, or failing without one); `id`, when given,
   * is the object it made (as {@link JournalTicket.made} would record it).
   */
  close(id?: number): void;
}

const PROCESS = randomUUID();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but someone else's.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `digest` of a request: its kind and body, as sent. */
export function requestDigest(kind: string, body: unknown): string {
  return createHash("sha256")
    .update(`${kind}\n${JSON.stringify(body)}`)
    .digest("hex");
}

/** The journals of this process, by folder: each keeps what it knows between creates. */
const journals = new Map<string, CreateJournal>();

/**
 * The creates of one project against one account, on disk.
 *
 * Reading it stays cheap however many creates a run makes: this process's own entries are known
 * from memory and entries of a process found dead are read once (nothing changes them any more),
 * so a create reads only the folder's listing and the files of other live hosts.
 */
export class CreateJournal {
  readonly #dir: string;
  readonly #now: () => number;
  /** Entries this process wrote, as last written, by name. */
  readonly #mine = new Map<string, JournalEntry>();
  /** Entries of processes found dead, by name: read once. */
  readonly #settled = new Map<string, JournalEntry>();

  constructor(dir: string, now: () => number = Date.now) {
    this.#dir = dir;
    this.#now = now;
  }

  /** The journal of the project in `cwd` for these settings (the key is only hashed). */
  static forProject(cwd: string, endpoint: string, apiKey: string): CreateJournal {
    const scope = createHash("sha256").update(`${cwd}\n${endpoint}\n${apiKey}`).digest("hex");
    const dir = join(tmpdir(), "pulumi-cloudinfra", scope.slice(0, 24));
    let journal = journals.get(dir);
    if (journal === undefined) {
      journal = new CreateJournal(dir);
      journals.set(dir, journal);
    }
    return journal;
  }

  /** Every entry on disk; unreadable files and expired entries are dropped. */
  entries(): JournalEntry[] {
    let names: string[];
    try {
      names = readdirSync(this.#dir).filter((n) => n.endsWith(".json"));
    } catch {
      return [];
    }
    const out: JournalEntry[] = [];
    const listed = new Set<string>();
    for (const file of names) {
      const name = file.slice(0, -".json".length);
      listed.add(name);
      const entry = this.#mine.get(name) ?? this.#settled.get(name) ?? this.#read(name);
      if (entry === undefined) continue;
      const expired =
        this.#now() - entry.at > ENTRY_TTL_MS ||
        (entry.closedAt !== undefined && this.#now() - entry.closedAt > CLOSED_ENTRY_TTL_MS);
      if (expired) this.forget(entry);
      else out.push(entry);
    }
    for (const name of this.#settled.keys()) if (!listed.has(name)) this.#settled.delete(name);
    return out.sort((a, b) => a.at - b.at);
  }

  /** An entry of another process, remembered once that process is gone. */
  #read(name: string): JournalEntry | undefined {
    let entry: JournalEntry;
    try {
      entry = JSON.parse(readFileSync(join(this.#dir, `${name}.json`), "utf8")) as JournalEntry;
    } catch {
      // Written by a newer version, or half-written by a version that did not rename: skip.
      return undefined;
    }
    if (entry.process !== PROCESS && !isAlive(entry.pid)) this.#settled.set(name, entry);
    return entry;
  }

  /** Open entries for `digest` whose process is gone: creates nobody finished. */
  orphans(digest: string): JournalEntry[] {
    return this.entries().filter(
      (e) => e.digest === digest && e.closedAt === undefined && this.#gone(e),
    );
  }

  /** Whether the process that wrote `entry` is gone (a pid reused since cannot bring it back). */
  #gone(entry: JournalEntry): boolean {
    return entry.process !== PROCESS && (this.#settled.has(entry.name) || !isAlive(entry.pid));
  }

  /** Ids that creates handed to the engine (closed entries), or that live processes made. */
  claimedIds(): Set<number> {
    const ids = new Set<number>();
    for (const e of this.entries()) {
      if (e.id === undefined) continue;
      if (e.closedAt !== undefined || !this.#gone(e)) ids.add(e.id);
    }
    return ids;
  }

  /** Writes an open entry before a request is sent. */
  open(digest: string, before: Iterable<number>): JournalTicket {
    const entry: JournalEntry = {
      name: randomUUID(),
      digest,
      pid: process.pid,
      process: PROCESS,
      at: this.#now(),
      before: [...before],
    };
    this.#write(entry);
    return {
      made: (id) => {
        entry.id = id;
        // A take-over of an entry with an id needs nothing else: the ids before are dropped.
        entry.before = [];
        this.#write(entry);
      },
      close: (id) => {
        if (id !== undefined) {
          entry.id = id;
          entry.before = [];
        }
        entry.closedAt = this.#now();
        if (entry.id === undefined) this.forget(entry);
        else this.#write(entry);
      },
    };
  }

  /** Records that an orphan was dealt with (taken over, or proved to have made nothing). */
  forget(entry: JournalEntry): void {
    this.#mine.delete(entry.name);
    this.#settled.delete(entry.name);
    rmSync(join(this.#dir, `${entry.name}.json`), { force: true });
  }

  #write(entry: JournalEntry): void {
    this.#mine.set(entry.name, { ...entry });
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      const path = join(this.#dir, `${entry.name}.json`);
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
      renameSync(temporary, path);
    } catch {
      // A journal that cannot be written only loses the take-over after a crash; the create
      // itself must not fail for it.
    }
  }
}
