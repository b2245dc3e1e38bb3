/**
 * Shared reads of a whole list (a refresh of 100 tags is one download): a read joins the request
 * in flight or reuses a list finished less than {@link DEFAULT_REUSE_MS} ago. A list requested
 * before a write through the session's client settled, or before this process saw a newer object
 * ({@link SharedLists.observed}), is never served after it: no resource reads back a list older
 * than its own last write.
 */

/** Longer than the gap between two waves of a refresh. */
export const DEFAULT_REUSE_MS = 1500;

/** `sent` numbers the requests, oldest first; `writes` counts settled writes. */
type Sent = { writes: number; sent: number };

interface Entry {
  /** The latest request, in flight until `settled`. */
  latest?: Sent & { requestedAt: number; settled: boolean; promise: Promise<readonly unknown[]> };
  finished?: Sent & { at: number; items: readonly unknown[] };
}

/** The list reads of one provider session, by kind (`"tags"`). */
export class SharedLists {
  readonly #entries = new Map<string, Entry>();
  readonly #reuseMs: number;
  readonly #now: () => number;
  #sent = 0;
  #writes = 0;

  /** `writes` is the API client; `now` a monotonic clock (ms). */
  constructor(
    writes: { onWriteSettled(listener: () => void): () => void } | undefined,
    options: { reuseMs?: number; now?: () => number } = {},
  ) {
    this.#reuseMs = options.reuseMs ?? DEFAULT_REUSE_MS;
    this.#now = options.now ?? (() => performance.now());
    writes?.onWriteSettled(() => this.observed());
  }

  /**
   * The request in flight, a list finished moments ago, or `fetch`; callers share the array.
   * Only requests numbered above `sentAfter` are shared.
   */
  read<T>(kind: string, fetch: () => Promise<readonly T[]>, sentAfter = 0): Promise<readonly T[]> {
    const entry = this.#entries.get(kind) ?? {};
    this.#entries.set(kind, entry);
    const writes = this.#writes;
    const { finished, latest } = entry;
    const fits = (r?: Sent): r is Sent => r?.writes === writes && r.sent > sentAfter;
    if (fits(finished) && this.#now() - finished.at < this.#reuseMs) {
      return Promise.resolve(finished.items as readonly T[]);
    }
    if (fits(latest) && !latest.settled) return latest.promise as Promise<readonly T[]>;
    const sent = ++this.#sent;
    const requestedAt = this.#now();
    const promise = fetch();
    const request = { writes, sent, requestedAt, settled: false, promise };
    entry.latest = request;
    promise.then(
      (items) => {
        request.settled = true;
        // A list must show the writes made while it was out, and never replace a newer one.
        if (this.#writes === writes && (entry.finished?.sent ?? 0) < sent) {
          entry.finished = { writes, sent, at: this.#now(), items };
        }
      },
      () => {
        if (entry.latest === request) delete entry.latest;
      },
    );
    return promise;
  }

  /** This process saw an object as it is now (a server's poll): older lists are not served. */
  observed(): void {
    this.#writes++;
  }

  /** A mark of this moment, for {@link SharedLists.since}. */
  mark(): number {
    return this.#sent;
  }

  /** A list requested after `mark`, whatever was written since: a wave of creates shares one. */
  since<T>(kind: string, fetch: () => Promise<readonly T[]>, mark: number): Promise<readonly T[]> {
    const latest = this.#entries.get(kind)?.latest;
    if (latest !== undefined && latest.sent > mark) return latest.promise as Promise<readonly T[]>;
    return this.read(kind, fetch, this.#sent);
  }

  /** The latest list requested within the reuse window, even if written since (create rule 1). */
  recent<T>(kind: string, fetch: () => Promise<readonly T[]>): Promise<readonly T[]> {
    const latest = this.#entries.get(kind)?.latest;
    if (latest !== undefined && this.#now() - latest.requestedAt < this.#reuseMs) {
      return latest.promise as Promise<readonly T[]>;
    }
    return this.read(kind, fetch, this.#sent);
  }

  /** The first item `match` accepts; absent only in a list requested after this call. */
  async find<T>(
    kind: string,
    fetch: () => Promise<readonly T[]>,
    match: (item: T) => boolean,
  ): Promise<T | undefined> {
    const sentBefore = this.#sent;
    const found = (await this.read(kind, fetch, 0)).find(match);
    if (found !== undefined) return found;
    return (await this.read(kind, fetch, sentBefore)).find(match);
  }
}
