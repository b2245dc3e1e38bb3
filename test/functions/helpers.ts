/**
 * Data-source tests run the functions in this process, as a Pulumi program would, against an
 * in-process emulator over real HTTPS. Settings reach them the way users give them: through
 * `CLOUDINFRA_*` variables (here) or stack config (`pulumi.runtime.setAllConfig`).
 */
import * as pulumi from "@pulumi/pulumi";
import type { EmulatorOptions } from "../../src/emulator";
import { resetHost } from "../../src/provider";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const VARIABLES = ["CLOUDINFRA_ENDPOINT", "CLOUDINFRA_API_KEY", "CLOUDINFRA_CA_CERT"] as const;

/** Points the `CLOUDINFRA_*` variables at `emulator` (or removes them with `undefined`). */
export function useEnv(emulator: TestEmulator | undefined, apiKey = emulator?.apiKey): void {
  for (const name of VARIABLES) delete process.env[name];
  if (emulator === undefined) return;
  process.env["CLOUDINFRA_ENDPOINT"] = emulator.endpoint;
  if (apiKey !== undefined) process.env["CLOUDINFRA_API_KEY"] = apiKey;
  process.env["CLOUDINFRA_CA_CERT"] = emulator.caCert;
}

/** Sets the stack config `cloudinfra:*` keys given (the API key as a secret), and only them. */
export function useStackConfig(values: { endpoint?: string; apiKey?: string; caCert?: string }) {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) config[`cloudinfra:${key}`] = value;
  }
  pulumi.runtime.setAllConfig(config, values.apiKey === undefined ? [] : ["cloudinfra:apiKey"]);
}

/** Starts an emulator and configures the data sources for it through the environment. */
export async function startEmulatorForFunctions(
  options: EmulatorOptions = {},
): Promise<TestEmulator> {
  const emulator = await startTestEmulator(options);
  useEnv(emulator);
  return emulator;
}

/** Closes the data sources' clients (their provider sessions) and the emulators, and clears settings. */
export async function stopAll(...emulators: (TestEmulator | undefined)[]): Promise<void> {
  useEnv(undefined);
  pulumi.runtime.setAllConfig({});
  await resetHost();
  await Promise.all(emulators.map((emulator) => emulator?.close()));
}

/** The rejection of `promise`, which must reject. */
export async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`rejected with a non-Error: ${String(err)}`);
  }
  throw new Error("expected the call to fail, but it succeeded");
}
