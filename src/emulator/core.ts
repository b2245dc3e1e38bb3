/**
 * The emulator's core as the layers around it see it: the state, the catalogue, the clock, the
 * servers' lifecycle, and the one way to change things (a transaction). Services, seeders, the
 * admin operations and the HTTP pipeline take this interface, not the `Emulator` class, so none
 * of them imports emulator.ts, which wires them together.
 */

import type { Clock } from "./service/clock";
import type { Lifecycle } from "./service/lifecycle";
import type { Catalogue, EmulatorState } from "./store/state";

export interface EmulatorCore {
  /** The whole state; a reset or a rolled-back transaction replaces it, so read it anew. */
  readonly state: EmulatorState;
  /** Plans, countries, images and blog posts (read-only, shared by all accounts). */
  readonly catalogue: Catalogue;
  readonly clock: Clock;
  /** Asynchronous server statuses: `begin` a transition, `advance` pending ones. */
  readonly lifecycle: Lifecycle;
  /** Stores bytes (attachments) with the next commit, under their sha256, which it answers. */
  putBlob(bytes: Uint8Array): Promise<string>;
  /**
   * Runs `change` all or nothing: committed (durably) when it returns; when it throws, memory
   * and the database stay as they were. A call inside another joins that one.
   */
  transaction<T>(change: () => T | Promise<T>): Promise<T>;
}
