/**
 * What the console needs of an emulator: its administration operations (the same ones the
 * /_emulator/ API and `startEmulator().admin` use, so the console changes nothing another way),
 * the catalogue to name plans, and the key that signs in.
 */
import type { EmulatorAdmin } from "../admin/operations";
import type { Catalogue } from "../store/state";

export interface ConsoleSource {
  readonly admin: EmulatorAdmin;
  readonly catalogue: Catalogue;
  /** The bootstrap administrator's key: the only one that opens the console. */
  bootstrapKey(): string;
  /** Reports an unexpected failure (stderr), as the API's pipeline does. */
  reportError(what: string, error: unknown): void;
}
