/**
 * The emulator as a library: start it in-process on a random port for tests.
 *
 *   const emulator = await startEmulator();
 *   // emulator.endpoint, emulator.caCert, emulator.apiKey ... emulator.admin.reset()
 *   await emulator.close();
 */
import type { EmulatorAdmin } from "./admin/operations";
import { Emulator, type EmulatorOptions, type ExtraRoute } from "./emulator";

export type {
  AccountRequest,
  AccountSummary,
  AdvanceRequest,
  ClockRequest,
  ClockView,
  EmulatorAdmin,
  EmulatorInfo,
  FailProvisioningRequest,
  FaultsView,
  LifecycleRequest,
  LifecycleView,
  RateLimitRequest,
  SeedRequest,
} from "./admin/operations";
export type { FaultConfig, FaultRule } from "./http/faults";
export type { RequestLogEntry, RouteCounter } from "./http/log";
export type { RateLimitConfig } from "./http/ratelimit";
export type { AnyRoute, Reply, RouteContext, RouteDefinition } from "./http/router";
export { defineRoute } from "./http/router";
export type { SeedResult } from "./seed/sample";
export type { LifecycleTiming, TransitionEvent } from "./service/lifecycle";
export type { EmulatorOptions, ExtraRoute };

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
  return {
    endpoint: emulator.endpoint,
    caCert: emulator.tls.caCert,
    caCertFile: emulator.caCertFile,
    apiKey: emulator.bootstrapKey,
    port: emulator.port,
    admin: emulator.admin,
    close: () => emulator.close(),
  };
}
