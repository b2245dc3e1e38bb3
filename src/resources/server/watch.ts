/**
 * The servers that one provider process waits for share their polls: {@link ServerWatch}.
 *
 * A fleet's `up` waits for dozens of servers at once. Polled one by one, each costs a request per
 * interval (9 for a 2 s provisioning); shared, one request per interval answers them all: the
 * server itself (`GET /v1/servers/:id`) when one server waits, the list (`GET /v1/servers`) when
 * several do. An answer only counts for the waits that began before it was requested, so a wait
 * never takes a list older than its question for the truth (a server absent from such a list is
 * gone).
 *
 * Polling rule, for each wait (the next poll is the earliest of every wait's):
 *
 *     interval = clamp(elapsed × 0.1, 250 ms, 10 s)  after the last poll that answered it
 *
 * where `elapsed` is the time since the wait began: a change is noticed within about 10% of the
 * time already spent, and a long wait costs at most one request every 10 s. No poll is sent at
 * once: the answer that started the wait (a create's) said where the server was.
 *
 * Expected durations: once this process has seen a transition end (provisioning, deleting...),
 * the next wait for the same transition is polled at the moment it is expected to end, in place
 * of the interval's poll around that moment: a change is seen within a round trip instead of an
 * interval, for no more requests. The duration comes from the service's own timestamps where the
 * end is a status (`status_date` of the new status minus that of the transient one); a deletion
 * leaves no timestamp, so its duration is bounded from our clock (from the moment the action was
 * sent to the answer that showed the server gone). Either way it can only be late, never early,
 * for transitions that last as long as the last one; the shortest seen is kept.
 */
import type { Id } from "../../api/endpoints/base";
import { NotFoundError } from "../../api/errors";
import { type RequestOptions, withOperationSignal } from "../../api/http";
import type { Server } from "../../api/schemas/servers";
import type { ProviderSession, SessionSlot } from "../session";
import type { SharedLists } from "../shared-list";

export const MIN_POLL_INTERVAL_MS = 250;
export const MAX_POLL_INTERVAL_MS = 10_000;
export const POLL_INTERVAL_FRACTION = 0.1;

/** How long to wait before the next poll, `elapsedMs` after the wait began. */
export function pollIntervalMs(elapsedMs: number): number {
  return Math.min(
    MAX_POLL_INTERVAL_MS,
    Math.max(MIN_POLL_INTERVAL_MS, Math.round(elapsedMs * POLL_INTERVAL_FRACTION)),
  );
}

/** The two calls the watch needs, so tests can hand in a scripted service. */
export interface ServerSource {
  list(options?: RequestOptions): Promise<readonly Server[]>;
  get(id: Id, options?: RequestOptions): Promise<Server>;
}

/** One wait's question to the watch: where it is, and what it waits out. */
export interface WatchQuestion {
  serverId: number;
  /** The transient status being waited out (`"provisioning"`), for its expected duration. */
  transition: string | undefined;
  /** When the action that started the transition was sent (our clock, ms since the epoch). */
  sentAt: number;
  /** When the wait began: the action had been answered. */
  startedAt: number;
  /** When the last poll that answered this wait was sent; `startedAt` before the first. */
  lastPolledAt: number;
  /** No poll later than this. */
  deadlineAt: number;
  signal?: AbortSignal | undefined;
}

/** An answer: the server as a poll requested after the question showed it (undefined: gone). */
export interface WatchAnswer {
  server: Server | undefined;
  /** When the poll was sent. */
  polledAt: number;
  /** When its answer came. */
  answeredAt: number;
}

interface Pending {
  question: WatchQuestion;
  resolve(answer: WatchAnswer): void;
  reject(err: unknown): void;
}

export interface ServerWatchOptions {
  /** Current time, ms since the epoch; tests pass their own. */
  now?: () => number;
  /** Ends every wait on this watch when aborted: its session's cancellation (the engine's Cancel). */
  signal?: AbortSignal | undefined;
}

/** Shared polls of the servers one process waits for; see the rule at the top of this module. */
export class ServerWatch {
  readonly #source: ServerSource;
  readonly #now: () => number;
  readonly #pending = new Set<Pending>();
  /**
   * The shortest duration seen of each transient status, in ms, and the moment of a wait it
   * counts from: when the wait began for a duration read from the service's timestamps (the
   * transition had begun by then), when the action was sent for one measured on our clock (that
   * is where the measure started).
   */
  readonly #expected = new Map<string, { ms: number; from: "startedAt" | "sentAt" }>();
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Number.POSITIVE_INFINITY;
  #polling = false;
  /** Polls sent, for tests and benchmarks. */
  polls = 0;
  /** Aborted when the session is cancelled: every wait ends (wait.ts). */
  readonly signal: AbortSignal | undefined;

  constructor(source: ServerSource, options: ServerWatchOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.signal = options.signal;
  }

  /**
   * The server as the next poll sent after this call shows it, `undefined` when that poll says it
   * does not exist. Rejects with the poll's error, or with the signal's reason on abort.
   */
  next(question: WatchQuestion): Promise<WatchAnswer> {
    return new Promise<WatchAnswer>((resolve, reject) => {
      const { signal } = question;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        this.#pending.delete(pending);
        reject(signal?.reason);
        this.#arm();
      };
      const pending: Pending = {
        question,
        resolve: (answer) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(answer);
        },
        reject: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.add(pending);
      this.#arm();
    });
  }

  /**
   * The server as a poll sent after this call shows it, `undefined` when it does not exist: the
   * next poll is sent at once, and reads that arrive meanwhile share the one after it.
   */
  async read(serverId: number, signal?: AbortSignal): Promise<Server | undefined> {
    const now = this.#now();
    const question: WatchQuestion = {
      serverId,
      transition: undefined,
      sentAt: now,
      startedAt: now,
      lastPolledAt: now,
      deadlineAt: now,
      signal,
    };
    return (await this.next(question)).server;
  }

  /**
   * Records that `server`, waited for since `question`, ended its transition: from `before`
   * (the transient state last seen, with its timestamp) when the server answered a status, or
   * when `answer` came when it is gone.
   */
  learn(question: WatchQuestion, before: Server | undefined, answer: WatchAnswer): void {
    const after = answer.server;
    const answeredAt = answer.answeredAt;
    const transition = question.transition;
    if (transition === undefined) return;
    let learned: { ms: number; from: "startedAt" | "sentAt" } | undefined;
    if (after === undefined) {
      learned = { ms: answeredAt - question.sentAt, from: "sentAt" };
    } else if (before !== undefined && before.status === transition) {
      const from = Date.parse(before.status_date ?? "");
      const to = Date.parse(after.status_date ?? "");
      if (Number.isFinite(from) && Number.isFinite(to) && to >= from) {
        learned = { ms: to - from, from: "startedAt" };
      }
    }
    if (learned === undefined) return;
    const known = this.#expected.get(transition);
    if (known === undefined || learned.ms < known.ms) this.#expected.set(transition, learned);
  }

  /** When the poll for `question` is due; see the rule at the top of this module. */
  dueAt(question: WatchQuestion): number {
    const last = question.lastPolledAt;
    const interval = pollIntervalMs(last - question.startedAt);
    const backoff = last + interval;
    const duration =
      question.transition === undefined ? undefined : this.#expected.get(question.transition);
    const expected = duration === undefined ? undefined : question[duration.from] + duration.ms;
    const due =
      expected !== undefined && expected > last && expected <= backoff + interval
        ? expected
        : backoff;
    return Math.min(due, question.deadlineAt);
  }

  #arm(): void {
    if (this.#polling) return;
    let due = Number.POSITIVE_INFINITY;
    for (const p of this.#pending) due = Math.min(due, this.dueAt(p.question));
    if (due === this.#timerDue) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = due;
    if (due === Number.POSITIVE_INFINITY) return;
    // A poll serves every wait: only the session's Cancel ends it, not the operation that armed
    // the timer (its customTimeouts would end the request in flight for all, http.ts).
    this.#timer = setTimeout(
      () => void withOperationSignal(this.signal, () => this.#poll()),
      Math.max(0, due - this.#now()),
    );
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const batch = [...this.#pending];
    if (batch.length === 0) return;
    this.#polling = true;
    for (const p of batch) this.#pending.delete(p);
    const polledAt = this.#now();
    this.polls++;
    try {
      const ids = new Set(batch.map((p) => p.question.serverId));
      const found = new Map<number, Server>();
      if (ids.size === 1) {
        const [id] = ids;
        try {
          const server = await this.#source.get(id ?? 0);
          found.set(server.id, server);
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
        }
      } else {
        for (const server of await this.#source.list()) found.set(server.id, server);
      }
      const answeredAt = this.#now();
      for (const p of batch) {
        p.resolve({ server: found.get(p.question.serverId), polledAt, answeredAt });
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.#polling = false;
      this.#arm();
    }
  }
}

/**
 * The watch shared by every wait of one provider session (one account). Its list polls go
 * through the session's list cache (always as new requests), where a server create of the moment
 * takes them as its look at the servers before it (../shared-list.ts).
 */
export function sessionWatch(
  client: { servers: ServerSource },
  lists: SharedLists,
  signal?: AbortSignal,
): ServerWatch {
  const { servers } = client;
  // Polls spend what the rate budget has left after the work a user waits for.
  const background = { priority: "background" } as const;
  return new ServerWatch(
    {
      // A server seen through its own poll is newer than any list of servers finished before: a
      // read after a create must not show the state the create waited past (lists.observed).
      get: async (id) => {
        try {
          return await servers.get(id, background);
        } finally {
          lists.observed();
        }
      },
      list: () => lists.since("servers", () => servers.list(background), lists.mark()),
    },
    { signal },
  );
}

/** The watch of a session: a slot of the session the server kind owns (../session.ts). */
const WATCH: SessionSlot<ServerWatch> = {
  make: (session) => sessionWatch(session.client, session.lists, session.cancelled),
};

/** The watch shared by every server wait of `session`, made on first use. */
export function serverWatch(session: ProviderSession): ServerWatch {
  return session.slot(WATCH);
}
