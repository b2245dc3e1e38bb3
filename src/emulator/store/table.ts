/**
 * An account's records of one kind, as route handlers see them: in memory, in creation order,
 * found by id or through an index, and every change recorded for the next commit (one database
 * row per record). Handlers change a record in place and then call {@link Table.update}; that
 * call is what makes the change durable, so a change without it would be lost at the next
 * restart (test emulators compare memory with the database after every request to catch one).
 */

/** The database tables that hold records (one row per record). */
export const RECORD_TABLES = [
  "accounts",
  "users",
  "roles",
  "servers",
  "tags",
  "ssh_keys",
  "security_groups",
  "tickets",
  "replies",
  "orders",
  "invoices",
  "cards",
] as const;
export type RecordTable = (typeof RECORD_TABLES)[number];

export type RecordId = number | string;
export type IndexKey = number | string;

/** Where changed rows go until the next commit (the store's journal). */
export interface RowSink {
  /**
   * Row `id` of `table` (owned by account `accountId`; null for the accounts themselves) now
   * holds `row()`, which is serialised when the change is committed.
   */
  put(table: RecordTable, id: RecordId, accountId: number | null, row: () => unknown): void;
  delete(table: RecordTable, id: RecordId): void;
  /** The state's meta row (id counters, bootstrap administrator) now holds `row()`. */
  putMeta(row: () => unknown): void;
}

export interface TableOptions<T, I extends string> {
  /**
   * Secondary indexes: the key (or keys) each record is filed under. Several records may share
   * a key; {@link Table.lookup} answers all of them.
   */
  indexes?: { [K in I]: (record: T) => IndexKey | readonly IndexKey[] };
  /** The row stored for a record, when it is not the record itself. */
  row?: (record: T) => unknown;
}

export class Table<T extends { id: K }, K extends RecordId = number, I extends string = never>
  implements Iterable<T>
{
  private readonly records = new Map<K, T>();
  private ordered: readonly T[] | undefined;
  private readonly buckets = new Map<I, Map<IndexKey, Map<K, T>>>();
  private readonly filedUnder = new Map<K, [I, IndexKey][]>();
  private readonly indexes: TableOptions<T, I>["indexes"];
  private readonly row: (record: T) => unknown;

  constructor(
    private readonly sink: RowSink,
    readonly name: RecordTable,
    private readonly accountId: number | null,
    options: TableOptions<T, I> = {},
    records: Iterable<T> = [],
  ) {
    this.indexes = options.indexes;
    this.row = options.row ?? ((record) => record);
    for (const index of Object.keys(this.indexes ?? {}) as I[]) this.buckets.set(index, new Map());
    for (const record of records) this.file(record);
  }

  get size(): number {
    return this.records.size;
  }

  get(id: K): T | undefined {
    return this.records.get(id);
  }

  /** Every record, oldest first. The array is a snapshot: changing the table does not move it. */
  all(): readonly T[] {
    this.ordered ??= [...this.records.values()];
    return this.ordered;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.all()[Symbol.iterator]();
  }

  /** The records filed under `key` in `index`. */
  lookup(index: I, key: IndexKey): T[] {
    const bucket = this.buckets.get(index)?.get(key);
    return bucket === undefined ? [] : [...bucket.values()];
  }

  /** Adds a new record. */
  insert(record: T): T {
    if (this.records.has(record.id)) {
      throw new Error(`${this.name}: a record with id ${record.id} already exists`);
    }
    this.file(record);
    this.save(record);
    return record;
  }

  /** Records that `record`, a record of this table, was changed in place. */
  update(record: T): void {
    if (this.records.get(record.id) !== record) {
      throw new Error(`${this.name}: record ${record.id} is not in this table`);
    }
    this.unfile(record.id);
    this.file(record);
    this.save(record);
  }

  /** Removes the record with this id; answers it, or undefined when there was none. */
  remove(id: K): T | undefined {
    const record = this.records.get(id);
    if (record === undefined) return undefined;
    this.unfile(id);
    this.records.delete(id);
    this.ordered = undefined;
    this.sink.delete(this.name, id);
    return record;
  }

  toJSON(): readonly T[] {
    return this.all();
  }

  private save(record: T): void {
    this.sink.put(this.name, record.id, this.accountId, () => this.row(record));
  }

  private file(record: T): void {
    if (!this.records.has(record.id)) this.ordered = undefined;
    this.records.set(record.id, record);
    if (this.indexes === undefined) return;
    const filed: [I, IndexKey][] = [];
    for (const [index, keyOf] of Object.entries(this.indexes) as [I, (r: T) => unknown][]) {
      const keys = keyOf(record) as IndexKey | readonly IndexKey[];
      for (const key of Array.isArray(keys) ? keys : [keys]) {
        const buckets = this.buckets.get(index) as Map<IndexKey, Map<K, T>>;
        let bucket = buckets.get(key);
        if (bucket === undefined) {
          bucket = new Map();
          buckets.set(key, bucket);
        }
        bucket.set(record.id, record);
        filed.push([index, key]);
      }
    }
    this.filedUnder.set(record.id, filed);
  }

  private unfile(id: K): void {
    for (const [index, key] of this.filedUnder.get(id) ?? []) {
      const buckets = this.buckets.get(index);
      const bucket = buckets?.get(key);
      bucket?.delete(id);
      if (bucket?.size === 0) buckets?.delete(key);
    }
    this.filedUnder.delete(id);
  }
}
