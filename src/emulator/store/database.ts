/**
 * Durability: the state lives in an SQLite database (`node:sqlite`), one row per record, and
 * every request's changes are committed in one transaction before the request is answered.
 *
 * - A data dir holds `state.db` in WAL mode with `synchronous = FULL`: a commit is on disk (the
 *   WAL fsynced) before the emulator answers, so a crash, even `kill -9` or a power cut, loses
 *   nothing acknowledged, and a write costs the rows it changes, whatever the state holds.
 * - The database is opened with an exclusive lock (`locking_mode = EXCLUSIVE`), which is the
 *   data dir's lock: the kernel drops it when the process ends, so a crashed or killed emulator
 *   (even one not yet reaped, a zombie) never keeps a new one from starting, while a live one
 *   always does. `emulator.lock` only names the holder's pid for the error message.
 * - `--memory` keeps the same database in memory.
 * - Route handlers record changes in the {@link Journal} (through `Table`); {@link Store.commit}
 *   writes what it holds. Rows are serialised at commit time, so a record changed twice in a
 *   request is written once, as it ends.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { messageOf } from "../../lib/message";
import { processRunning } from "../../lib/process";
import { sqlite } from "./sqlite";
import type { AccountRecords, AccountRow, StateMeta } from "./state";
import { noRecords } from "./state";
import { RECORD_TABLES, type RecordId, type RecordTable, type RowSink } from "./table";

const DATABASE_FILE = "state.db";
const LOCK_FILE = "emulator.lock";
/** Bumped (as SQLite's `user_version`) when the schema changes. */
const SCHEMA_VERSION = 1;

/** Every row of a stored state, grouped by account. */
export interface StoredState {
  meta: StateMeta;
  accounts: { row: AccountRow; records: AccountRecords }[];
}

interface PendingRow {
  table: RecordTable;
  id: RecordId;
  accountId: number | null;
  /** Undefined for a deletion. */
  row: (() => unknown) | undefined;
}

/** Changes recorded since the last commit. */
export class Journal implements RowSink {
  private rows = new Map<string, PendingRow>();
  private meta: (() => unknown) | undefined;
  private blobs = new Map<string, Uint8Array>();
  private emptyFirst = false;

  put(table: RecordTable, id: RecordId, accountId: number | null, row: () => unknown): void {
    this.rows.set(`${table}\u0000${id}`, { table, id, accountId, row });
  }

  delete(table: RecordTable, id: RecordId): void {
    this.rows.set(`${table}\u0000${id}`, { table, id, accountId: null, row: undefined });
  }

  putMeta(row: () => unknown): void {
    this.meta = row;
  }

  putBlob(id: string, bytes: Uint8Array): void {
    this.blobs.set(id, bytes);
  }

  /** The next commit empties every table before it writes (a reset). */
  emptyEverything(): void {
    this.rows.clear();
    this.meta = undefined;
    this.emptyFirst = true;
  }

  get empty(): boolean {
    return (
      this.rows.size === 0 && this.meta === undefined && this.blobs.size === 0 && !this.emptyFirst
    );
  }

  /** Hands the recorded changes over and starts a new journal. */
  take(): {
    rows: PendingRow[];
    meta: (() => unknown) | undefined;
    blobs: Map<string, Uint8Array>;
    emptyFirst: boolean;
  } {
    const taken = {
      rows: [...this.rows.values()],
      meta: this.meta,
      blobs: this.blobs,
      emptyFirst: this.emptyFirst,
    };
    this.rows = new Map();
    this.meta = undefined;
    this.blobs = new Map();
    this.emptyFirst = false;
    return taken;
  }

  /** Forgets every change recorded since the last commit (a failed request's). */
  discard(): void {
    this.take();
  }

  /** Puts changes back after a failed commit; they go with the next one. */
  restore(taken: ReturnType<Journal["take"]>): void {
    for (const row of taken.rows) {
      const key = `${row.table}\u0000${row.id}`;
      if (!this.rows.has(key)) this.rows.set(key, row);
    }
    this.meta ??= taken.meta;
    for (const [id, bytes] of taken.blobs) if (!this.blobs.has(id)) this.blobs.set(id, bytes);
    this.emptyFirst ||= taken.emptyFirst;
  }
}

/** Data dirs opened by this process: a second emulator here is told so, not "database is locked". */
const openDirs = new Set<string>();

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface TableStatements {
  upsert: StatementSync;
  remove: StatementSync;
  all: StatementSync;
}

export class Store {
  readonly journal = new Journal();
  private readonly statements = new Map<RecordTable, TableStatements>();
  private readonly metaUpsert: StatementSync;
  private readonly blobInsert: StatementSync;
  private closed = false;

  private constructor(
    /** Where the database lives; undefined in memory mode. */
    readonly dataDir: string | undefined,
    private readonly db: DatabaseSync,
  ) {
    for (const table of RECORD_TABLES) {
      this.statements.set(table, {
        upsert: db.prepare(
          `INSERT INTO ${table} (id, account_id, body) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, body = excluded.body`,
        ),
        remove: db.prepare(`DELETE FROM ${table} WHERE id = ?`),
        all: db.prepare(`SELECT account_id, body FROM ${table} ORDER BY rowid`),
      });
    }
    this.metaUpsert = db.prepare(
      "INSERT INTO meta (key, value) VALUES ('state', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    );
    this.blobInsert = db.prepare("INSERT OR IGNORE INTO blobs (id, bytes) VALUES (?, ?)");
  }

  /**
   * Opens (creating it when needed) the database of `dataDir`, or an in-memory one. Refuses a
   * data dir another emulator holds, and a file that is not an emulator database.
   */
  static open(dataDir?: string): Store {
    if (dataDir === undefined) {
      const db = new (sqlite().DatabaseSync)(":memory:");
      createSchema(db);
      return new Store(undefined, db);
    }
    if (openDirs.has(dataDir)) throw new Error(`${dataDir} is already in use by this process`);
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, DATABASE_FILE);
    let db: DatabaseSync | undefined;
    try {
      // Password and key hashes live here: private to the user, like the keys next to it.
      // SQLite gives its WAL file the database file's mode.
      closeSync(openSync(file, "a", 0o600));
      db = new (sqlite().DatabaseSync)(file);
      // Before anything reads the file: the lock is taken at the first access and kept.
      db.exec("PRAGMA locking_mode = EXCLUSIVE");
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = FULL");
      createSchema(db);
    } catch (error) {
      db?.close();
      throw openError(dataDir, file, error);
    }
    writeFileSync(join(dataDir, LOCK_FILE), `${process.pid}\n`);
    openDirs.add(dataDir);
    return new Store(dataDir, db);
  }

  /** Everything stored, or undefined for a database that holds no state yet. */
  load(): StoredState | undefined {
    const meta = this.db.prepare("SELECT value FROM meta WHERE key = 'state'").get() as
      | { value: string }
      | undefined;
    if (meta === undefined) return undefined;
    const accounts = new Map<number, { row: AccountRow; records: AccountRecords }>();
    for (const { body } of this.rows("accounts")) {
      const row = JSON.parse(body) as AccountRow;
      accounts.set(row.profile.id, { row, records: noRecords() });
    }
    for (const table of RECORD_TABLES) {
      if (table === "accounts") continue;
      for (const { account_id, body } of this.rows(table)) {
        const account = accounts.get(account_id);
        if (account === undefined) {
          throw new Error(`${table} holds a row of account ${account_id}, which does not exist`);
        }
        (account.records[table] as unknown[]).push(JSON.parse(body));
      }
    }
    return { meta: JSON.parse(meta.value) as StateMeta, accounts: [...accounts.values()] };
  }

  /**
   * Writes everything the journal holds in one transaction; durable when it returns. On a
   * failure nothing is written and the changes stay in the journal for the next commit.
   */
  commit(): void {
    if (this.journal.empty) return;
    if (this.closed) throw new Error("the store is closed");
    const taken = this.journal.take();
    try {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        if (taken.emptyFirst) {
          for (const table of [...RECORD_TABLES, "meta"]) this.db.exec(`DELETE FROM ${table}`);
        }
        for (const row of taken.rows) {
          const statements = this.statements.get(row.table) as TableStatements;
          if (row.row === undefined) statements.remove.run(row.id);
          else statements.upsert.run(row.id, row.accountId, JSON.stringify(row.row()));
        }
        if (taken.meta !== undefined) this.metaUpsert.run(JSON.stringify(taken.meta()));
        for (const [id, bytes] of taken.blobs) this.blobInsert.run(id, bytes);
        this.db.exec("COMMIT");
      } catch (error) {
        this.db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      this.journal.restore(taken);
      throw error;
    }
  }

  /** Stores bytes (with the next commit) under their sha256 and returns it. */
  async putBlob(bytes: Uint8Array): Promise<string> {
    const id = sha256(bytes);
    this.journal.putBlob(id, bytes);
    return id;
  }

  /** Commits what is left, then releases the database and the data dir. */
  close(): void {
    if (this.closed) return;
    try {
      this.commit();
    } finally {
      this.closed = true;
      this.db.close();
      if (this.dataDir !== undefined) {
        openDirs.delete(this.dataDir);
        rmSync(join(this.dataDir, LOCK_FILE), { force: true });
      }
    }
  }

  private rows(table: RecordTable): { account_id: number; body: string }[] {
    return (this.statements.get(table) as TableStatements).all.all() as {
      account_id: number;
      body: string;
    }[];
  }
}

function createSchema(db: DatabaseSync): void {
  const version = (db.prepare("PRAGMA user_version").get() as { user_version: number })
    .user_version;
  if (version === SCHEMA_VERSION) return;
  if (version !== 0) {
    throw new Error(
      `its schema version is ${version}, this emulator knows ${SCHEMA_VERSION}; use the emulator version that wrote it`,
    );
  }
  db.exec("BEGIN IMMEDIATE");
  try {
    for (const table of RECORD_TABLES) {
      // Cards have string ids; every other record an integer one.
      const idType = table === "cards" ? "TEXT" : "INTEGER";
      db.exec(
        `CREATE TABLE ${table} (id ${idType} PRIMARY KEY, account_id INTEGER, body TEXT NOT NULL)`,
      );
      if (table !== "accounts") db.exec(`CREATE INDEX ${table}_account ON ${table} (account_id)`);
    }
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE blobs (id TEXT PRIMARY KEY, bytes BLOB NOT NULL)");
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

function openError(dataDir: string, file: string, error: unknown): Error {
  const code = sqliteCode(error);
  if (code === SQLITE_BUSY || code === SQLITE_LOCKED) {
    let holder = "another process";
    try {
      const pid = Number(readFileSync(join(dataDir, LOCK_FILE), "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && processRunning(pid)) {
        holder = `another emulator (pid ${pid})`;
      }
    } catch {
      // No lock file: some other program has the database open.
    }
    return new Error(`${dataDir} is in use by ${holder}`);
  }
  if (code === SQLITE_NOTADB || code === SQLITE_CORRUPT) {
    return new Error(
      `${file} is not a readable emulator database (${messageOf(error)}); refusing to start over it`,
    );
  }
  return new Error(`cannot open ${file}: ${messageOf(error)}`);
}
