/**
 * Shared reads of a whole list, for kinds the API reads only through a list endpoint (a tag, a
 * role): a refresh of 100 tags calls `read` 100 times, concurrently or in waves, and one download
 * holds them all. Concurrent reads of a list join the request in flight, and a list finished less
 * than {@link DEFAULT_REUSE_MS} ago is reused (the next waves of a refresh).
 *
 * Freshness: each Pulumi operation starts a new host, so a list is never reused across
 * operations; and a list requested before a write through the session's client settled
 * (`onWriteSettled`), or before this process saw a newer object otherwise
 * ({@link SharedLists.observed}), is never served after it: a resource never reads back a list
 * older than its own last write.
 *
 * Absence is a costly verdict (a refresh drops the resource, an adoption fails), so
 * {@link SharedLists.find} concludes that something is missing only from a list requested after
 * the lookup began. A create's ids before (create.ts, rule 1) need only a list requested before
 * the send: {@link SharedLists.recent}.
 */

/** How long a finished list is reused: longer than the gap between two waves of a refresh. */
export const DEFAULT_REUSE_MS = 1500;

interface Entry {
  /** `sent` numbers the requests of this cache, oldest first; `writes` counts settled writes. */
  inFlight?: { writes: number; sent: number; promise: Promise<readonly unknown[]> };
  finished?: { writes: number; sent: number; at: number; items: readonly unknown[] };
  /** The last request sent, whatever was written since. */
  latest?: { sent: number; requestedAt: number; promise: Promise<readonly unknown[]> };
}

/** The list reads of one provider session (one client, one account), by kind (`"tags"`). */
export class SharedLists {
  readonly #entries = new Map<string, Entry>();
  readonly #reuseMs: number;
  readonly #now: () => number;
  #sent = 0;
  #writes = 0;

  /** `writes` is the API client; tests pass their own `now` (a monotonic clock, ms). */
  constructor(
    writes: { onWriteSettled(listener: () => void): () => void } | undefined,
    options: { reuseMs?: number; now?: () => number } = {},
  ) {
    this.#reuseMs = options.reuseMs ?? DEFAULT_REUSE_MS;
    this.#now = options.now ?? (() => performance.now());
    writes?.onWriteSettled(() => {
      this.#writes++;
    });
  }

  #entry(kind: string): Entry {
    const entry = this.#entries.get(kind) ?? {};
    this.#entries.set(kind, entry);
    return entry;
  }

  /**
   * The list of `kind`: the request in flight, a list finished moments ago, or a new request by
   * `fetch`. Callers share the array and must not change it; a failed request is never reused.
   */
  read<T>(kind: string, fetch: () => Promise<readonly T[]>): Promise<readonly T[]> {
    return this.#read(kind, fetch, 0);
  }

  /** {@link read}, sharing only requests numbered above `sentAfter`. */
  #read<T>(
    kind: string,
    fetch: () => Promise<readonly T[]>,
    sentAfter: number,
  ): Promise<readonly T[]> {
    const entry = this.#entry(kind);
    const writes = this.#writes;
    const { finished, inFlight } = entry;
    if (
      finished !== undefined &&
      finished.writes === writes &&
      finished.sent > sentAfter &&
      this.#now() - finished.at < this.#reuseMs
    ) {
      return Promise.resolve(finished.items as readonly T[]);
    }
    if (inFlight !== undefined && inFlight.writes === writes && inFlight.sent > sentAfter) {
      return inFlight.promise as Promise<readonly T[]>;
    }
    const sent = ++this.#sent;
    const requestedAt = this.#now();
    const promise = fetch();
    entry.latest = { sent, requestedAt, promise };
    const flight = { writes, sent, promise: promise as Promise<readonly unknown[]> };
    entry.inFlight = flight;
    const settle = () => {
      if (entry.inFlight === flight) delete entry.inFlight;
    };
    promise.then(
      (items) => {
        settle();
        // A write while the request was out may be missing from it; an older request that
        // finishes late must not replace a newer list.
        if (this.#writes === writes && (entry.finished?.sent ?? 0) < sent) {
          entry.finished = { writes, sent, at: this.#now(), items };
        }
      },
      () => {
        settle();
        if (entry.latest?.promise === promise) delete entry.latest;
      },
    );
    return promise;
  }

  /**
   * This process has just seen an object as it is now other than through a list (a server's
   * poll): lists finished or in flight before now are not served again, as after a write.
   */
  observed(): void {
    this.#writes++;
  }

  /** A mark of this moment, for {@link SharedLists.since}. */
  mark(): number {
    return this.#sent;
  }

  /**
   * A list of `kind` requested after `mark`, in flight or finished, whatever was written since;
   * else a new request: the creates of a wave that finished together find theirs in one list.
   */
  since<T>(kind: string, fetch: () => Promise<readonly T[]>, mark: number): Promise<readonly T[]> {
    const { latest } = this.#entry(kind);
    if (latest !== undefined && latest.sent > mark) return latest.promise as Promise<readonly T[]>;
    return this.#read(kind, fetch, this.#sent);
  }

  /** The latest list of `kind` requested less than the reuse window ago, even if this session wrote since; else a new request. */
  recent<T>(kind: string, fetch: () => Promise<readonly T[]>): Promise<readonly T[]> {
    const { latest } = this.#entry(kind);
    if (latest !== undefined && this.#now() - latest.requestedAt < this.#reuseMs) {
      return latest.promise as Promise<readonly T[]>;
    }
    return this.#read(kind, fetch, this.#sent);
  }

  /** The first item `match` accepts; a miss in a list requested before this call asks again. */
  async find<T>(
    kind: string,
    fetch: () => Promise<readonly T[]>,
    match: (item: T) => boolean,
  ): Promise<T | undefined> {
    const sentBefore = this.#sent;
    const found = (await this.#read(kind, fetch, 0)).find(match);
    if (found !== undefined) return found;
    return (await this.#read(kind, fetch, sentBefore)).find(match);
  }
}
