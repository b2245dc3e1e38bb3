/**
 * Shared reads of a whole list, for resources the API can only read through a list endpoint (a
 * tag, a role). A refresh of a stack with 100 tags calls `read` 100 times, concurrently or in
 * waves as wide as the engine's parallelism; without sharing that is 100 full list downloads
 * (and rate-limit budget) for data that one download holds.
 *
 * Two rules make that one download:
 * - Concurrent reads of the same list (same client, same kind) join the one request in flight.
 * - A list that finished less than {@link DEFAULT_REUSE_MS} ago is reused, which covers the next
 *   waves of a refresh.
 *
 * Freshness: a reused list can miss a change made elsewhere in that short window. Each Pulumi
 * operation starts a new provider host, so this never spans two operations; and a list read
 * before a write through the session's client settled (the client says so: `onWriteSettled`),
 * or before this process saw an object newer than the list by other means ({@link
 * SharedLists.observed}: a server's own poll), is never served after it, so a resource never
 * reads back a list older than its own last write or what its create last saw.
 *
 * Absence is a verdict, and a costly one: a refresh that reads "gone" drops the resource from the
 * state, and an adoption or lookup that finds nothing fails. So {@link SharedLists.find} only
 * concludes that something is missing from a list requested after the lookup began; a shared or
 * reused list can only confirm presence. A refresh of many objects that all exist still costs one
 * request; each wave of missing ones costs one more.
 *
 * A create's look at what existed before it (create.ts) needs less: any list requested before
 * the create is sent will do, whatever this process wrote since, because the objects this
 * process's own creates made since are known by their claims. {@link SharedLists.recent} serves it
 * from the latest list requested less than {@link DEFAULT_REUSE_MS} ago, so a thousand creates do
 * not each invalidate the next one's list.
 */

/** How long a finished list is reused: longer than the gap between two waves of a refresh. */
export const DEFAULT_REUSE_MS = 1500;

interface Entry {
  /** `sent` is the request's number in the order this cache sent them. */
  inFlight?: { writes: number; sent: number; promise: Promise<readonly unknown[]> };
  finished?: { writes: number; sent: number; at: number; items: readonly unknown[] };
  /** The last request sent, whatever was written since: for {@link SharedLists.recent}. */
  latest?: { sent: number; requestedAt: number; promise: Promise<readonly unknown[]> };
}

/** What tells the cache that a write settled: the API client (`CloudInfraClient`). */
export interface WriteEvents {
  onWriteSettled(listener: () => void): () => void;
}

export interface SharedListOptions {
  /** How long a finished list is reused, in milliseconds. */
  reuseMs?: number;
  /** Monotonic clock in milliseconds; tests pass their own. */
  now?: () => number;
}

/**
 * The list reads of one provider session (one client, one account), by kind (`"tags"`,
 * `"roles"`): a session built for other settings never sees another's data.
 */
export class SharedLists {
  readonly #entries = new Map<string, Entry>();
  readonly #reuseMs: number;
  readonly #now: () => number;
  /** How many requests this cache has sent: numbers them, oldest first. */
  #sent = 0;
  /** How many writes of the client settled: a list requested before one is not reused after. */
  #writes = 0;

  constructor(writes: WriteEvents | undefined, options: SharedListOptions = {}) {
    this.#reuseMs = options.reuseMs ?? DEFAULT_REUSE_MS;
    this.#now = options.now ?? (() => performance.now());
    writes?.onWriteSettled(() => {
      this.#writes++;
    });
  }

  #entry(kind: string): Entry {
    let entry = this.#entries.get(kind);
    if (entry === undefined) {
      entry = {};
      this.#entries.set(kind, entry);
    }
    return entry;
  }

  /**
   * The list of `kind`: the request in flight, a list finished moments ago, or a new request
   * made with `fetch`. Callers share the array: they must not change it. A failed request is
   * never reused; every caller that joined it sees its error.
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
        // A write through this session while the request was out may not be in its answer; and
        // an older request that finishes late must not replace a newer list.
        if (
          this.#writes === writes &&
          (entry.finished === undefined || entry.finished.sent < sent)
        ) {
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
   * status from its own poll): lists finished or in flight before now are not served again, as
   * after a write, so a read never shows the object older than its create or update saw it.
   */
  observed(): void {
    this.#writes++;
  }

  /** A mark of this moment: {@link SharedLists.since} serves lists requested after it. */
  mark(): number {
    return this.#sent;
  }

  /**
   * A list of `kind` requested after `mark` (from {@link SharedLists.mark}), in flight or
   * finished, whatever was written since; else a new request. For a caller that needs to see
   * what existed at the time of the mark, such as the object its create just made: the creates
   * of a wave that finished together find theirs in one list.
   */
  since<T>(kind: string, fetch: () => Promise<readonly T[]>, mark: number): Promise<readonly T[]> {
    const { latest } = this.#entry(kind);
    if (latest !== undefined && latest.sent > mark) return latest.promise as Promise<readonly T[]>;
    return this.#read(kind, fetch, this.#sent);
  }

  /**
   * The latest list of `kind` requested less than the reuse window ago, in flight or finished,
   * even if this session wrote since; else a new request. Only for a caller that needs a list
   * requested before now, not one that reflects its own writes (see the top of this module).
   */
  recent<T>(kind: string, fetch: () => Promise<readonly T[]>): Promise<readonly T[]> {
    const { latest } = this.#entry(kind);
    if (latest !== undefined && this.#now() - latest.requestedAt < this.#reuseMs) {
      return latest.promise as Promise<readonly T[]>;
    }
    return this.#read(kind, fetch, this.#sent);
  }

  /**
   * The first item of the list that `match` accepts. A shared or reused list can show that the
   * item exists; only a list requested after this call began can show that it does not, so a
   * miss in an older list asks again (joining any request sent since).
   */
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
