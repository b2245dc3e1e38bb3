/**
 * Waiting for servers (docs/resources.md, "Waiting for servers"): the API cannot read an action,
 * so a wait polls the server for its status, sharing the polls of the session's other waits. An
 * answer counts only for the waits that began before it was requested: a server absent from an
 * older list is not gone. A wait's first poll is never at once (the answer that started it said
 * where the server was). A transition's expected end is the shortest duration seen, from the
 * service's `status_date`s, or from our clock (action sent → 404) for a deletion.
 */
import {
  ApiError,
  CloudInfraError,
  ConnectionError,
  nameErrorClass,
  TimeoutError,
} from "../../api/errors";
import { withOperationSignal } from "../../api/http";
import {
  MANAGEMENT_TRANSITIONS,
  type ManagementAction,
  type Server,
} from "../../api/schemas/servers";
import { formatDuration } from "../../lib/duration";
import { unlessNotFound } from "../common";
import type { ProviderSession, SessionSlot } from "../session";
import { settlesIn, type WaitTarget } from "./model";

/** The next poll's delay: `clamp(elapsed × 0.1, 250 ms, 10 s)`. */
export function pollIntervalMs(elapsedMs: number): number {
  return Math.min(10_000, Math.max(250, Math.round(elapsedMs * 0.1)));
}

/** The two calls the watch needs, so tests can hand in a scripted service. */
export interface ServerSource {
  list(): Promise<readonly Server[]>;
  get(id: number): Promise<Server>;
}

/** One wait's question (times in ms since the epoch; no poll after `deadlineAt`). */
interface WatchQuestion {
  serverId: number;
  /** The transient status waited out (`"provisioning"`), for its expected duration. */
  transition: string | undefined;
  sentAt: number;
  /** When the wait began: the action had been answered. */
  startedAt: number;
  /** When its last answered poll was sent (`startedAt` before the first). */
  lastPolledAt: number;
  deadlineAt: number;
}

/** The server as a poll sent after the question showed it (`undefined`: gone). */
interface WatchAnswer {
  server: Server | undefined;
  polledAt: number;
  answeredAt: number;
}

interface Pending {
  question: WatchQuestion;
  resolve(answer: WatchAnswer): void;
  reject(err: unknown): void;
}

export class ServerWatch {
  readonly #pending = new Set<Pending>();
  /** The shortest duration seen of each transient status, and the moment it counts from. */
  readonly #expected = new Map<string | undefined, { ms: number; from: "startedAt" | "sentAt" }>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  /** The session's cancellation (the engine's Cancel): every wait ends. */
  readonly signal: AbortSignal | undefined;

  constructor(
    private readonly source: ServerSource,
    { signal }: { signal?: AbortSignal | undefined } = {},
  ) {
    this.signal = signal;
    // Every wait ends at once, even one whose poll is in flight.
    signal?.addEventListener("abort", () => {
      for (const p of this.#pending) p.reject(signal.reason);
      this.#pending.clear();
      this.#arm();
    });
  }

  /** The answer of the next poll sent after this call; rejects with its error, or on abort. */
  next(question: WatchQuestion): Promise<WatchAnswer> {
    if (this.signal?.aborted) return Promise.reject(this.signal.reason);
    return new Promise<WatchAnswer>((resolve, reject) => {
      this.#pending.add({ question, resolve, reject });
      this.#arm();
    });
  }

  /** The server as a poll sent at once shows it; reads that arrive meanwhile share the next. */
  async read(serverId: number): Promise<Server | undefined> {
    const now = Date.now();
    const at = { sentAt: now, startedAt: now, lastPolledAt: now, deadlineAt: now };
    return (await this.next({ serverId, transition: undefined, ...at })).server;
  }

  /** Records a transition's end; `before`: the transient state last seen, with its timestamp. */
  learn(question: WatchQuestion, before: Server | undefined, answer: WatchAnswer): void {
    const { transition } = question;
    const after = answer.server;
    if (transition === undefined) return;
    let learned: { ms: number; from: "startedAt" | "sentAt" } | undefined;
    if (after === undefined) {
      learned = { ms: answer.answeredAt - question.sentAt, from: "sentAt" };
    } else if (before?.status === transition) {
      // NaN (a missing or unreadable `status_date`) is never >= 0.
      const ms = Date.parse(after.status_date ?? "") - Date.parse(before.status_date ?? "");
      if (ms >= 0) learned = { ms, from: "startedAt" };
    }
    if (learned === undefined) return;
    const known = this.#expected.get(transition);
    if (known === undefined || learned.ms < known.ms) this.#expected.set(transition, learned);
  }

  /** The expected end when it falls within the next interval, else the back-off. */
  dueAt(question: WatchQuestion): number {
    const last = question.lastPolledAt;
    const interval = pollIntervalMs(last - question.startedAt);
    const backoff = last + interval;
    const duration = this.#expected.get(question.transition);
    const expected = duration && question[duration.from] + duration.ms;
    const due =
      expected !== undefined && expected > last && expected <= backoff + interval
        ? expected
        : backoff;
    return Math.min(due, question.deadlineAt);
  }

  #arm(): void {
    if (this.#polling) return;
    // A loop, not Math.min(...spread): this runs on every wait's turn, over every pending wait.
    let due = Number.POSITIVE_INFINITY;
    for (const p of this.#pending) due = Math.min(due, this.dueAt(p.question));
    clearTimeout(this.#timer);
    if (due === Number.POSITIVE_INFINITY) return;
    // A poll serves every wait: only the session's Cancel ends it, not the operation that armed
    // the timer (its customTimeouts would end the request in flight for all, http.ts).
    this.#timer = setTimeout(
      () => void withOperationSignal(this.signal, () => this.#poll()),
      Math.max(0, due - Date.now()),
    );
  }

  async #poll(): Promise<void> {
    const batch = [...this.#pending];
    this.#polling = true;
    const polledAt = Date.now();
    try {
      const [id, ...more] = new Set(batch.map((p) => p.question.serverId));
      const servers =
        id !== undefined && more.length === 0
          ? [await unlessNotFound(this.source.get(id))]
          : await this.source.list();
      const found = new Map(servers.filter((s) => s !== undefined).map((s) => [s.id, s]));
      const answeredAt = Date.now();
      for (const p of batch) {
        p.resolve({ server: found.get(p.question.serverId), polledAt, answeredAt });
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      for (const p of batch) this.#pending.delete(p);
      this.#polling = false;
      this.#arm();
    }
  }
}

/**
 * The watch of one session. Its list polls (always new requests) go through the session's list
 * cache, where a create of the moment takes them as its look before it (../shared-list.ts).
 */
export const WATCH: SessionSlot<ServerWatch> = {
  make({ client: { servers }, lists, cancelled }) {
    const background = { priority: "background" } as const;
    const source: ServerSource = {
      // A server seen through its own poll is newer than any list finished before: a read after a
      // create must not show the state the create waited past (lists.observed).
      get: (id) => servers.get(id, background).finally(() => lists.observed()),
      list: () => lists.since("servers", () => servers.list(background), lists.mark()),
    };
    return new ServerWatch(source, { signal: cancelled });
  },
};

/** The watch shared by every server wait of `session`, made on first use. */
export const serverWatch = (session: ProviderSession): ServerWatch => session.slot(WATCH);

export interface WaitForServerStatusOptions {
  /** What started the wait: a management action, a create, or a transition already under way. */
  action: ManagementAction | "create" | "settle";
  actionId?: string | undefined;
  target: WaitTarget;
  deadlineAt: number;
  /** Named when the deadline passes: `timeouts.update (now 10m)`. */
  timeoutSetting?: string | undefined;
  /** The server as last seen before the wait: its status and timestamp say when the transition began. */
  initial?: Server | undefined;
  /** When the request that started the transition was sent; default now. */
  sentAt?: number | undefined;
}

/** A wait that did not reach its target. */
export class ServerWaitError extends CloudInfraError {
  static {
    nameErrorClass(ServerWaitError, "ServerWaitError");
  }
  constructor(
    message: string,
    readonly reason: "error" | "unreachable" | "disappeared" | "timeout" | "aborted",
    /** The last answer about the server, for recording what exists. */
    readonly lastServer: Server | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A wait for `gone` ends with the server's 404, any other with its last answer. */
export type Reached<T extends WaitTarget> = T extends "gone" ? undefined : Server;

/** Poll failures that say nothing about the server and may pass. */
function isTransient(err: unknown): boolean {
  if (err instanceof ConnectionError || err instanceof TimeoutError) return true;
  return err instanceof ApiError && (err.status === 429 || err.status >= 500);
}

/**
 * Polls until the server reaches `target`: its last answer (`undefined` for `gone`), else a
 * {@link ServerWaitError} as soon as the target cannot come. A poll's error is thrown unless
 * transient (then polled again until the deadline).
 */
export async function waitForServerStatus<T extends WaitTarget>(
  watch: ServerWatch,
  serverId: number,
  options: WaitForServerStatusOptions & { target: T },
): Promise<Reached<T>> {
  const startedAt = Date.now();
  const { action } = options;
  // The transient status waited out (for its expected duration), the statuses an action may still
  // show a moment after its answer (those it is accepted from), and what the errors call the wait.
  const waited: { via: string | undefined; from: readonly string[]; described: string } =
    action === "create"
      ? { via: "provisioning", from: [], described: "create" }
      : action === "settle"
        ? { via: options.initial?.status, from: [], described: "a transition already under way" }
        : { ...MANAGEMENT_TRANSITIONS[action], described: `${action} action` };
  const { via: transition, from: pending, described } = waited;
  let last: Server | undefined = options.initial;
  // The last answer in the transient status: its timestamp says when the transition began.
  let transient = last?.status === transition ? last : undefined;
  let lastPollError: unknown;
  let lastPolledAt = startedAt;
  const asked = { serverId, transition, sentAt: options.sentAt ?? startedAt };
  const target = JSON.stringify(options.target);

  /** A timeout also names the last poll's failure (its cause) and the setting to raise. */
  const fail = (reason: ServerWaitError["reason"], headline: string): ServerWaitError => {
    const context = [
      options.actionId === undefined ? described : `${described} ${options.actionId}`,
      `last status ${last === undefined ? "unknown" : JSON.stringify(last.status)}`,
      `${formatDuration(Date.now() - startedAt)} elapsed`,
    ].join("; ");
    if (reason !== "timeout") return new ServerWaitError(`${headline} (${context})`, reason, last);
    const polled =
      lastPollError instanceof Error ? `; the last poll failed: ${lastPollError.message}` : "";
    const { timeoutSetting: setting } = options;
    const advice = setting === undefined ? "" : `; raise ${setting} if it needs longer`;
    const cause = lastPollError === undefined ? undefined : { cause: lastPollError };
    return new ServerWaitError(`${headline}${polled} (${context})${advice}`, reason, last, cause);
  };

  for (;;) {
    const question = { ...asked, startedAt, lastPolledAt, deadlineAt: options.deadlineAt };
    const answer = await watch.next(question).catch((err: unknown) => {
      if (watch.signal?.aborted) {
        throw fail("aborted", `stopped waiting for server ${serverId} to reach ${target}: aborted`);
      }
      if (!isTransient(err)) throw err;
      lastPollError = err;
      lastPolledAt = Date.now();
      return undefined;
    });
    if (answer !== undefined) {
      lastPollError = undefined;
      lastPolledAt = answer.polledAt;
      const { server } = answer;
      if (server === undefined && options.target !== "gone") {
        throw fail("disappeared", `server ${serverId} disappeared (404) before reaching ${target}`);
      }
      if (server?.status === transition) transient = server;
      if (server === undefined || server.status === options.target) {
        watch.learn(question, transient, answer);
        return server as Reached<T>;
      }
      last = server;
      if (settlesIn(server.status) !== options.target && !pending.includes(server.status)) {
        throw server.status === "error"
          ? fail("error", `server ${serverId} went to status "error" before reaching ${target}`)
          : fail(
              "unreachable",
              `server ${serverId} is ${JSON.stringify(server.status)} and can no longer reach ${target} by itself (something else changed the server meanwhile)`,
            );
      }
    }
    if (Date.now() >= options.deadlineAt) {
      throw fail("timeout", `timed out waiting for server ${serverId} to reach ${target}`);
    }
  }
}
