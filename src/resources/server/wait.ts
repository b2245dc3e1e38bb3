/**
 * Waiting for a server's status. The API has no endpoint to read an action, so "waiting for an
 * action" means polling the server until its status reaches the action's target, and failing as
 * soon as it is clear the target will not come: status `error`, a status from which the target
 * is no longer reachable, the server gone, the deadline passed, or the caller aborting.
 *
 * The polls are the process's shared ones, and so is their rule: see watch.ts.
 */

import type { Id } from "../../api/endpoints/base";
import {
  ApiError,
  CloudInfraError,
  ConnectionError,
  nameErrorClass,
  TimeoutError,
} from "../../api/errors";
import {
  MANAGEMENT_TRANSITIONS,
  type ManagementAction,
  type Server,
} from "../../api/schemas/servers";
import { formatDuration } from "./model";
import type { ServerWatch, WatchAnswer, WatchQuestion } from "./watch";

/** Where a wait ends: a settled status, or `gone` (the server answers 404). */
export type WaitTarget = "running" | "stopped" | "gone";

/** What is being waited for: a management action, the provisioning of a new server, or a transition already under way. */
export type WaitAction = ManagementAction | "create" | "settle";

export interface WaitForServerStatusOptions {
  /** What started the transition; named in errors. */
  action: WaitAction;
  /** The action id the management call answered, when there was one. */
  actionId?: string | undefined;
  /** The status to reach. */
  target: WaitTarget;
  /** Give up at this time (`Date.now()` milliseconds). */
  deadlineAt: number;
  /** Where the time limit comes from (`timeouts.update = 10m`), said in the timeout error. */
  timeoutSetting?: string | undefined;
  /** Stops the wait with a `ServerWaitError` of reason `aborted`. */
  signal?: AbortSignal | undefined;
  /**
   * The server as last seen before the wait: the create's answer, or the read before an action.
   * Its status and timestamp tell the watch when the transition began.
   */
  initial?: Server | undefined;
  /** When the request that started the transition was sent (ms since the epoch); default now. */
  sentAt?: number | undefined;
}

/** Why a wait failed. */
export type WaitFailure = "error" | "unreachable" | "disappeared" | "timeout" | "aborted";

/** A wait that did not reach its target; the message names action, server, target, last status and time. */
export class ServerWaitError extends CloudInfraError {
  static {
    nameErrorClass(ServerWaitError, "ServerWaitError");
  }
  constructor(
    message: string,
    readonly reason: WaitFailure,
    readonly serverId: Id,
    readonly target: WaitTarget,
    readonly lastStatus: string | undefined,
    readonly elapsedMs: number,
    /** The last answer about the server, for recording what exists. */
    readonly lastServer: Server | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Transient statuses that settle by themselves in each target, from the transition table. */
function statusesOnTheWay(target: WaitTarget): Set<string> {
  const on = new Set<string>(target === "running" ? ["provisioning"] : []);
  for (const t of Object.values(MANAGEMENT_TRANSITIONS)) {
    if ((t.to ?? "gone") === target) on.add(t.via);
  }
  return on;
}

/** Where a status that is on its way somewhere settles by itself (`stopping` → `stopped`). */
export function settlesIn(status: string): WaitTarget | undefined {
  for (const target of ["running", "stopped", "gone"] as const) {
    if (statusesOnTheWay(target).has(status)) return target;
  }
  return undefined;
}

/**
 * Statuses in which the action may simply not show yet (a service is allowed to move a moment
 * after answering): the statuses the action is accepted from.
 */
function notYetApplied(action: WaitAction): readonly string[] {
  return action === "create" || action === "settle" ? [] : MANAGEMENT_TRANSITIONS[action].from;
}

/** Poll failures that say nothing about the server and may pass: keep polling until the deadline. */
function isTransient(err: unknown): boolean {
  if (err instanceof ConnectionError || err instanceof TimeoutError) return true;
  return err instanceof ApiError && (err.status === 429 || err.status >= 500);
}

/** The transient status a wait waits out, for its expected duration. */
function transitionOf(action: WaitAction, initial: Server | undefined): string | undefined {
  if (action === "create") return "provisioning";
  if (action === "settle") return initial?.status;
  return MANAGEMENT_TRANSITIONS[action].via;
}

function describeAction(options: WaitForServerStatusOptions): string {
  const what =
    options.action === "create"
      ? "create"
      : options.action === "settle"
        ? "a transition already under way"
        : `${options.action} action`;
  return options.actionId === undefined ? what : `${what} ${options.actionId}`;
}

/**
 * Polls server `serverId` (through the process's shared `watch`) until it reaches `target` and
 * returns the last answer (`undefined` for `gone`). Throws a {@link ServerWaitError} on status
 * `error`, on a status from which the target cannot be reached, when the server disappears, at
 * the deadline, or on abort. Other failures of a poll are thrown as they are, except transient
 * ones (5xx, 429, connection, timeout), which are retried until the deadline.
 */
export async function waitForServerStatus(
  watch: ServerWatch,
  serverId: Id,
  options: WaitForServerStatusOptions & { target: "running" | "stopped" },
): Promise<Server>;
export async function waitForServerStatus(
  watch: ServerWatch,
  serverId: Id,
  options: WaitForServerStatusOptions,
): Promise<Server | undefined>;
export async function waitForServerStatus(
  watch: ServerWatch,
  serverId: Id,
  options: WaitForServerStatusOptions,
): Promise<Server | undefined> {
  const startedAt = Date.now();
  // The caller's signal, and the session's cancellation (the engine's Cancel) through the watch.
  const signals = [options.signal, watch.signal].filter((s) => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const onTheWay = statusesOnTheWay(options.target);
  const pending = notYetApplied(options.action);
  const transition = transitionOf(options.action, options.initial);
  let last: Server | undefined = options.initial;
  /** The last answer in the transient status, whose timestamp says when the transition began. */
  let transient = last?.status === transition ? last : undefined;
  let lastPollError: unknown;
  let lastPolledAt = startedAt;

  const fail = (
    reason: WaitFailure,
    headline: string,
    cause?: unknown,
    advice?: string,
  ): ServerWaitError => {
    const elapsed = Date.now() - startedAt;
    const status = last?.status;
    const context = [
      describeAction(options),
      `last status ${status === undefined ? "unknown" : JSON.stringify(status)}`,
      `${formatDuration(elapsed)} elapsed`,
    ].join("; ");
    return new ServerWaitError(
      `${headline} (${context})${advice === undefined ? "" : `; ${advice}`}`,
      reason,
      serverId,
      options.target,
      status,
      elapsed,
      last,
      cause === undefined ? undefined : { cause },
    );
  };
  const target = JSON.stringify(options.target);
  const aborted = () =>
    fail("aborted", `stopped waiting for server ${serverId} to reach ${target}: aborted`);

  for (;;) {
    if (signal?.aborted) throw aborted();
    const question: WatchQuestion = {
      serverId: Number(serverId),
      transition,
      sentAt: options.sentAt ?? startedAt,
      startedAt,
      lastPolledAt,
      deadlineAt: options.deadlineAt,
      signal,
    };
    let answer: WatchAnswer | undefined;
    try {
      answer = await watch.next(question);
      lastPollError = undefined;
    } catch (err) {
      if (signal?.aborted) throw aborted();
      if (!isTransient(err)) throw err;
      lastPollError = err;
      lastPolledAt = Date.now();
    }
    if (answer !== undefined) {
      lastPolledAt = answer.polledAt;
      const server = answer.server;
      if (server === undefined) {
        if (options.target === "gone") {
          watch.learn(question, transient, answer);
          return undefined;
        }
        throw fail("disappeared", `server ${serverId} disappeared (404) before reaching ${target}`);
      }
      last = server;
      const status = server.status;
      if (status === transition) transient = server;
      if (status === options.target) {
        watch.learn(question, transient, answer);
        return server;
      }
      if (!onTheWay.has(status) && !pending.includes(status)) {
        if (status === "error") {
          throw fail(
            "error",
            `server ${serverId} went to status "error" before reaching ${target}`,
          );
        }
        throw fail(
          "unreachable",
          `server ${serverId} is ${JSON.stringify(status)} and can no longer reach ${target} by itself (something else changed the server meanwhile)`,
        );
      }
    }
    if (Date.now() >= options.deadlineAt) {
      const pollError =
        lastPollError instanceof Error ? `; the last poll failed: ${lastPollError.message}` : "";
      throw fail(
        "timeout",
        `timed out waiting for server ${serverId} to reach ${target}${pollError}`,
        lastPollError,
        options.timeoutSetting === undefined
          ? undefined
          : `raise ${options.timeoutSetting} if it needs longer`,
      );
    }
  }
}
