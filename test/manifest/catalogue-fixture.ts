/**
 * What the manifest tests share: an in-process emulator that the data sources (so the manifest's
 * catalogue checks) use through the CLOUDINFRA_* variables, and a scratch folder for manifests;
 * both are made before the file's tests and removed after them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmulatorForFunctions, stopAll } from "../functions/helpers";
import type { TestEmulator } from "../support/emulator";

export interface CatalogueFixture {
  /** The emulator, once the file's tests run. */
  readonly emulator: TestEmulator;
  /** A folder of the file's own. */
  readonly dir: string;
}

export function useCatalogueEmulator(name: string): CatalogueFixture {
  const dir = mkdtempSync(join(tmpdir(), `manifest-${name}-`));
  let emulator: TestEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulatorForFunctions();
  });
  afterAll(async () => {
    await stopAll(emulator);
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    get emulator() {
      if (emulator === undefined) throw new Error("the emulator starts before the tests");
      return emulator;
    },
  };
}
