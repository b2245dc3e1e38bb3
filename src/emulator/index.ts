/**
 * The emulator as a library: start it in-process on a random port for tests.
 *
 *   const emulator = await startEmulator();
 *   // emulator.endpoint, emulator.caCert, emulator.apiKey ... emulator.admin.reset()
 *   await emulator.close();
 */
import type { NewAccountOptions } from "./accounts";
import { Emulator, type EmulatorOptions, type ExtraRoute } from "./emulator";
import type { FaultConfig } from "./faults";
import type { LifecycleTiming, TransitionEvent } from "./lifecycle";
import type { RequestLogEntry, RouteCounter } from "./log";
import type { RateLimitConfig } from "./ratelimit";
import type { SeedRequest, SeedResult } from "./seed";

export type { FaultConfig, FaultRule } from "./faults";
export type { LifecycleTiming } from "./lifecycle";
export type { RateLimitConfig } from "./ratelimit";
export type { AnyRoute, Reply, RouteContext, RouteDefinition } from "./router";
export { defineRoute } from "./router";
export type { EmulatorOptions, ExtraRoute };

/** In-process administration, the same operations as the /_emulator/ HTTP API. */
export interface EmulatorAdmin {
  reset(): Promise<void>;
  createAccount(
    options?: NewAccountOptions,
  ): Promise<{ account_id: number; user_id: number; api_key: string }>;
  seed(request: SeedRequest & { account_id?: number }): Promise<SeedResult>;
  setFaults(config: FaultConfig): void;
  clearFaults(): void;
  setLifecycle(timing: {
    mode?: LifecycleTiming["mode"];
    durations?: Partial<LifecycleTiming["durations"]>;
  }): void;
  /** Completes pending status transitions now (all, or one account's, or one server's). */
  advance(filter?: { account_id?: number; server_id?: number }): Promise<TransitionEvent[]>;
  failProvisioning(request: { next?: number; server_ids?: number[] }): void;
  setRateLimit(config: Partial<RateLimitConfig>): void;
  requests(limit?: number): RequestLogEntry[];
  counters(): RouteCounter[];
  /** Moves the emulator clock (timestamps only; timers run on real time). */
  setClockOffset(ms: number): void;
}

export interface RunningEmulator {
  /** `https://127.0.0.1:<port>` */
  endpoint: string;
  /** PEM of the CA that signed the server certificate. */
  caCert: string;
  /** The same CA on disk (in memory mode, a temp file removed by close()). */
  caCertFile: string;
  /** The bootstrap administrator's key (all permissions, and /_emulator/). */
  apiKey: string;
  port: number;
  admin: EmulatorAdmin;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = new Emulator(options);
  try {
    await emulator.start();
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const admin: EmulatorAdmin = {
    reset: () => emulator.reset(),
    createAccount: (account) => emulator.createAccount(account),
    seed: (request) => emulator.seed(request),
    setFaults: (config) => emulator.faults.configure(config),
    clearFaults: () => emulator.faults.clear(),
    setLifecycle: (timing) => emulator.lifecycle.setTiming(timing),
    advance: async (filter) => {
      const events = emulator.lifecycle.advance(filter);
      await emulator.store.persist();
      return events;
    },
    failProvisioning: (request) => emulator.lifecycle.failProvisioning(request),
    setRateLimit: (config) => emulator.rateLimiter.configure(config),
    requests: (limit) => emulator.requestLog.recent(limit),
    counters: () => emulator.requestLog.routeCounters(),
    setClockOffset: (ms) => emulator.clock.setOffset(ms),
  };
  return {
    endpoint: emulator.endpoint,
    caCert: emulator.tls.caCert,
    caCertFile: emulator.caCertFile,
    apiKey: emulator.bootstrapKey,
    port: emulator.port,
    admin,
    close: () => emulator.close(),
  };
}
