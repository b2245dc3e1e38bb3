/**
 * Asynchronous server statuses. A route puts a server in a transient status with
 * {@link Lifecycle.begin}; the move to the target happens later, either on a timer (`auto`) or
 * when a test calls POST /_emulator/lifecycle/advance (`manual`). The pending transition is part
 * of the server record, with its due time, so it survives a restart: overdue ones complete as
 * soon as the emulator is back.
 */
import { randomUUID } from "node:crypto";
import { definedOnly } from "../../lib/defined";
import type {
  AccountState,
  EmulatorState,
  ServerRecord,
  ServerStatus,
  TransientStatus,
  TransitionTarget,
} from "../store/state";
import type { Clock } from "./clock";

export type LifecycleMode = "auto" | "manual";

export interface LifecycleTiming {
  mode: LifecycleMode;
  /** How long each transient status lasts in `auto` mode, in milliseconds. */
  durations: Record<TransientStatus, number>;
}

/** Long enough to look real in a demo, short enough not to bore anyone. */
export const DEFAULT_TIMING: LifecycleTiming = {
  mode: "auto",
  durations: {
    provisioning: 3000,
    stopping: 1500,
    starting: 1500,
    rebooting: 2000,
    deleting: 1500,
  },
};

/** One completed transition, as admin endpoints report it. */
export interface TransitionEvent {
  account_id: number;
  server_id: number;
  action_id: string;
  from: ServerStatus;
  to: TransitionTarget;
  at: string;
}

export interface ProvisioningFailures {
  /** The next N servers that start provisioning end in `error`. */
  next: number;
  /** Servers (by id) whose pending provisioning ends in `error`. */
  server_ids: number[];
}

export class Lifecycle {
  private timingValue: LifecycleTiming = cloneTiming(DEFAULT_TIMING);
  private failures: ProvisioningFailures = { next: 0, server_ids: [] };
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly deps: {
      getState: () => EmulatorState;
      clock: Clock;
      /** Runs the completion of timed transitions all or nothing, durably, in its turn. */
      transaction: (change: () => void) => Promise<void>;
      onError: (error: unknown) => void;
    },
  ) {}

  get timing(): LifecycleTiming {
    return cloneTiming(this.timingValue);
  }

  setTiming(timing: {
    mode?: LifecycleMode | undefined;
    durations?: { [K in TransientStatus]?: number | undefined } | undefined;
  }): void {
    if (timing.mode !== undefined) this.timingValue.mode = timing.mode;
    if (timing.durations !== undefined) {
      this.timingValue.durations = {
        ...this.timingValue.durations,
        ...definedOnly(timing.durations),
      };
    }
    this.reschedule();
  }

  get provisioningFailures(): ProvisioningFailures {
    return { next: this.failures.next, server_ids: [...this.failures.server_ids] };
  }

  failProvisioning(request: {
    next?: number | undefined;
    server_ids?: number[] | undefined;
  }): void {
    if (request.next !== undefined) this.failures.next = request.next;
    if (request.server_ids !== undefined) {
      this.failures.server_ids = [...new Set([...this.failures.server_ids, ...request.server_ids])];
    }
  }

  /** Back to the start-up timing, no failures planned. */
  reset(timing: LifecycleTiming): void {
    this.timingValue = cloneTiming(timing);
    this.failures = { next: 0, server_ids: [] };
    this.reschedule();
  }

  /**
   * Puts `server`, a server of `account`, in `transient` now; it reaches `target` later.
   * Returns the action id.
   */
  begin(
    account: AccountState,
    server: ServerRecord,
    transient: TransientStatus,
    target: TransitionTarget,
  ): string {
    const now = this.deps.clock.now();
    const actionId = randomUUID();
    server.status = transient;
    server.status_date = now;
    server.updated_at = now;
    const dueAt = Date.now() + this.timingValue.durations[transient];
    server.pending = { action_id: actionId, target, due_at: dueAt };
    if (transient === "provisioning" && this.failures.next > 0) {
      this.failures.next -= 1;
      server.pending.fail = true;
    }
    account.servers.update(server);
    if (this.timingValue.mode === "auto" && dueAt < this.timerDue) this.arm(dueAt);
    return actionId;
  }

  /**
   * Completes pending transitions now, whatever their due time: all of them, or those of one
   * server or one account. The caller commits.
   */
  advance(
    filter: { account_id?: number | undefined; server_id?: number | undefined } = {},
  ): TransitionEvent[] {
    const events: TransitionEvent[] = [];
    for (const account of this.deps.getState().accounts) {
      if (filter.account_id !== undefined && account.profile.id !== filter.account_id) continue;
      for (const server of [...account.servers]) {
        if (filter.server_id !== undefined && server.id !== filter.server_id) continue;
        if (server.pending !== undefined) events.push(this.complete(account, server));
      }
    }
    this.reschedule();
    return events;
  }

  /** Pending transitions, soonest first. */
  pending(): {
    account_id: number;
    server_id: number;
    status: ServerStatus;
    target: TransitionTarget;
    due_in_ms: number;
  }[] {
    const out = [];
    for (const account of this.deps.getState().accounts) {
      for (const server of account.servers) {
        if (server.pending === undefined) continue;
        out.push({
          account_id: account.profile.id,
          server_id: server.id,
          status: server.status,
          target: server.pending.target,
          due_in_ms: Math.max(0, server.pending.due_at - Date.now()),
        });
      }
    }
    return out.sort((a, b) => a.due_in_ms - b.due_in_ms);
  }

  /** Starts the timer for whatever is pending in the (possibly just loaded) state. */
  reschedule(): void {
    this.disarm();
    if (this.stopped || this.timingValue.mode !== "auto") return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const account of this.deps.getState().accounts) {
      for (const server of account.servers) {
        if (server.pending !== undefined && server.pending.due_at < earliest)
          earliest = server.pending.due_at;
      }
    }
    if (earliest !== Number.POSITIVE_INFINITY) this.arm(earliest);
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(dueAt: number): void {
    this.disarm();
    this.timerDue = dueAt;
    this.timer = setTimeout(() => this.fireDue(), Math.max(0, dueAt - Date.now()));
    // A pending transition alone must not keep a test process (or the CLI after close) alive.
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
  }

  private fireDue(): void {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    if (this.stopped || this.timingValue.mode !== "auto") return;
    this.deps
      .transaction(() => {
        if (this.stopped || this.timingValue.mode !== "auto") return;
        const now = Date.now();
        for (const account of this.deps.getState().accounts) {
          for (const server of [...account.servers]) {
            if (server.pending !== undefined && server.pending.due_at <= now) {
              this.complete(account, server);
            }
          }
        }
        this.reschedule();
      })
      .catch((error: unknown) => this.deps.onError(error));
  }

  private complete(account: AccountState, server: ServerRecord): TransitionEvent {
    const pending = server.pending;
    if (pending === undefined) throw new Error(`server ${server.id} has no pending transition`);
    const now = this.deps.clock.now();
    const from = server.status;
    const failed =
      pending.fail === true ||
      (from === "provisioning" && this.failures.server_ids.includes(server.id));
    const to: TransitionTarget = failed ? "error" : pending.target;
    delete server.pending;
    if (to === "gone") {
      removeServer(account, server.id);
    } else {
      server.status = to;
      server.status_date = now;
      server.updated_at = now;
      account.servers.update(server);
    }
    if (failed)
      this.failures.server_ids = this.failures.server_ids.filter((id) => id !== server.id);
    return {
      account_id: account.profile.id,
      server_id: server.id,
      action_id: pending.action_id,
      from,
      to,
      at: now,
    };
  }
}

/** Removes a server and every reference to it (tags, security groups). */
export function removeServer(account: AccountState, serverId: number): void {
  account.servers.remove(serverId);
  for (const tag of account.tags.lookup("server", serverId)) {
    tag.server_ids = tag.server_ids.filter((id) => id !== serverId);
    account.tags.update(tag);
  }
  for (const group of account.security_groups.lookup("server", serverId)) {
    group.server_ids = group.server_ids.filter((id) => id !== serverId);
    account.security_groups.update(group);
  }
}

function cloneTiming(timing: LifecycleTiming): LifecycleTiming {
  return { mode: timing.mode, durations: { ...timing.durations } };
}
