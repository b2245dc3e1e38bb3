/**
 * What the console needs of an emulator: its administration operations (the same ones the
 * /_emulator/ API and `startEmulator().admin` use, so the console changes nothing another way),
 * the catalogue to name plans, the key that signs in, and the throttle and log of sign-ins.
 */
import type { EmulatorAdmin } from "../admin/operations";
import type { AuthThrottle } from "../service/auth-throttle";
import type { Catalogue } from "../store/state";

export interface ConsoleSource {
  readonly admin: EmulatorAdmin;
  readonly catalogue: Catalogue;
  /** The bootstrap administrator's key: the only one that opens the console. */
  bootstrapKey(): string;
  /** Failed authentications per client address, shared with the API: wrong keys count here too. */
  readonly authThrottle: AuthThrottle;
  /** Puts a sign-in attempt (its status) in the request log and the counters. */
  recordSignIn(status: number, durationMs: number): void;
  /** Reports an unexpected failure (stderr), as the API's pipeline does. */
  reportError(what: string, error: unknown): void;
}
