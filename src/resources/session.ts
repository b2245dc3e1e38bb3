/**
 * The provider host's connection to the API: the settings handed to `configure()` (or the
 * environment when no configure call came) and one client built from them, reused by every
 * resource in the process so that keep-alive connections are shared.
 */
import { CloudInfraClient } from "../api/client";
import type { HttpClientOptions } from "../api/http";
import {
  type ConfigSource,
  clientOptions,
  resolveSettings,
  type Settings,
  settingsFingerprint,
} from "../config";
import { CreateJournal } from "./journal";

const KEYS = ["cloudinfra:endpoint", "cloudinfra:apiKey", "cloudinfra:caCert"] as const;

let configured: Map<string, string> | undefined;
let cached: { fingerprint: string; client: CloudInfraClient } | undefined;
let overrides: Pick<HttpClientOptions, "retryBaseDelayMs" | "retryMaxDelayMs"> = {};

/** Records the stack configuration; only our own keys are kept. */
export function configureSession(config: ConfigSource): void {
  const copy = new Map<string, string>();
  for (const key of KEYS) {
    const value = config.get(key);
    if (value !== undefined) copy.set(key, value);
  }
  configured = copy;
}

/** The effective settings: stack config first, then `CLOUDINFRA_*` variables. */
export function currentSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return resolveSettings(
    configured === undefined ? undefined : { get: (k) => configured?.get(k) },
    env,
  );
}

/**
 * The journal of this project's creates against the current account (journal.ts): the host runs
 * in the project's directory.
 */
export function createJournal(): CreateJournal {
  const { endpoint, apiKey } = currentSettings();
  return CreateJournal.forProject(process.cwd(), endpoint, apiKey);
}

/** The shared client for the current settings; a settings change (tests) builds a new one. */
export function apiClient(): CloudInfraClient {
  const settings = currentSettings();
  const fingerprint = settingsFingerprint(settings);
  if (cached?.fingerprint !== fingerprint) {
    const previous = cached?.client;
    cached = {
      fingerprint,
      client: new CloudInfraClient({ ...clientOptions(settings), ...overrides }),
    };
    void previous?.close();
  }
  return cached.client;
}

/** For tests that run providers in-process: forget the configuration, the client and the overrides. */
export async function resetSession(): Promise<void> {
  const client = cached?.client;
  configured = undefined;
  cached = undefined;
  overrides = {};
  await client?.close();
}

/**
 * For tests that run providers in-process against injected faults: the retry backoff of the
 * clients built from now on (retries stay as many, only the waits between them shrink).
 */
export function setRetryBackoffForTests(
  backoff: Pick<HttpClientOptions, "retryBaseDelayMs" | "retryMaxDelayMs">,
): void {
  overrides = { ...backoff };
  void cached?.client.close();
  cached = undefined;
}
