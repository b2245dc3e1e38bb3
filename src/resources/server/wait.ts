/** The API cannot read an action: waiting for one polls the server (watch.ts) for its status. */
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
import { formatDuration } from "../../lib/duration";
import { settlesIn, type WaitTarget } from "./model";
import type { ServerWatch, WatchAnswer, WatchQuestion } from "./watch";

/** What started the wait: a management action, a create, or a transition already under way. */
type WaitAction = ManagementAction | "create" | "settle";

export interface WaitForServerStatusOptions {
  action: WaitAction;
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
  serverId: Id,
  options: WaitForServerStatusOptions & { target: T },
): Promise<Reached<T>> {
  const startedAt = Date.now();
  // The session's cancellation (the engine's Cancel) ends the wait.
  const { signal } = watch;
  const { action } = options;
  // The transient status waited out (for its expected duration), and the statuses an action may
  // still show a moment after its answer (those it is accepted from).
  const { via: transition, from: pending }: { via: string | undefined; from: readonly string[] } =
    action === "create"
      ? { via: "provisioning", from: [] }
      : action === "settle"
        ? { via: options.initial?.status, from: [] }
        : MANAGEMENT_TRANSITIONS[action];
  const described =
    action === "create" || action === "settle"
      ? { create: "create", settle: "a transition already under way" }[action]
      : `${action} action`;
  let last: Server | undefined = options.initial;
  // The last answer in the transient status: its timestamp says when the transition began.
  let transient = last?.status === transition ? last : undefined;
  let lastPollError: unknown;
  let lastPolledAt = startedAt;
  const sentAt = options.sentAt ?? startedAt;
  const asked = { serverId: Number(serverId), transition, sentAt, startedAt, signal };

  const fail = (
    reason: ServerWaitError["reason"],
    headline: string,
    cause?: unknown,
    advice?: string,
  ): ServerWaitError => {
    const context = [
      options.actionId === undefined ? described : `${described} ${options.actionId}`,
      `last status ${last === undefined ? "unknown" : JSON.stringify(last.status)}`,
      `${formatDuration(Date.now() - startedAt)} elapsed`,
    ].join("; ");
    return new ServerWaitError(
      `${headline} (${context})${advice === undefined ? "" : `; ${advice}`}`,
      reason,
      last,
      cause === undefined ? undefined : { cause },
    );
  };
  const target = JSON.stringify(options.target);
  const aborted = () =>
    fail("aborted", `stopped waiting for server ${serverId} to reach ${target}: aborted`);

  for (;;) {
    if (signal?.aborted) throw aborted();
    const question: WatchQuestion = { ...asked, lastPolledAt, deadlineAt: options.deadlineAt };
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
          return undefined as Reached<T>;
        }
        throw fail("disappeared", `server ${serverId} disappeared (404) before reaching ${target}`);
      }
      last = server;
      const status = server.status;
      if (status === transition) transient = server;
      if (status === options.target) {
        watch.learn(question, transient, answer);
        return server as Reached<T>;
      }
      if (settlesIn(status) !== options.target && !pending.includes(status)) {
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
