/**
 * Settings for talking to the API, resolved once from Pulumi stack config (`cloudinfra:*`) with the
 * `CLOUDINFRA_*` environment variables as fallback. Used by the provider host (through
 * `configure()`) and by data sources (in the program process). Knows nothing of undici.
 * A missing or invalid setting is a ConfigurationError naming the config key and the variable.
 */
import { createHash } from "node:crypto";
import { ConfigurationError } from "./api/errors";
import type { HttpClientOptions } from "./api/http";

/** Where a setting can come from: Pulumi's `dynamic.Config`, `pulumi.Config`, or nothing. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

export interface Settings {
  /** Base URL of the API, always `https://`. */
  endpoint: string;
  /** The provider's API key. Secret: never logged, never in an error, never serialized. */
  apiKey: string;
  /** PEM text or path of an extra CA certificate to trust. */
  caCert?: string;
}

export { ConfigurationError };

export interface SettingSpec {
  configKey: string;
  envVar: string;
}

const ENDPOINT: SettingSpec = { configKey: "cloudinfra:endpoint", envVar: "CLOUDINFRA_ENDPOINT" };
const API_KEY: SettingSpec = { configKey: "cloudinfra:apiKey", envVar: "CLOUDINFRA_API_KEY" };
const CA_CERT: SettingSpec = { configKey: "cloudinfra:caCert", envVar: "CLOUDINFRA_CA_CERT" };

/**
 * Each setting with its config key and environment variable, keyed as {@link Settings} is: the
 * native provider's schema declares its configuration from this table.
 */
export const SETTINGS: Readonly<Record<keyof Settings, Readonly<SettingSpec>>> = {
  endpoint: ENDPOINT,
  apiKey: API_KEY,
  caCert: CA_CERT,
};

function lookup(spec: SettingSpec, config: ConfigSource | undefined, env: NodeJS.ProcessEnv) {
  const fromConfig = config?.get(spec.configKey);
  if (fromConfig !== undefined && fromConfig !== "") return fromConfig;
  const fromEnv = env[spec.envVar];
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined;
}

function howToSet(spec: SettingSpec, secret = false): string {
  const flag = secret ? " --secret" : "";
  return `set it with \`pulumi config set${flag} ${spec.configKey} ...\` or the ${spec.envVar} environment variable`;
}

/**
 * Resolves the settings. Stack config wins over the environment. Throws a ConfigurationError
 * that says which key or variable to set; the API key's value never appears in it.
 */
export function resolveSettings(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Settings {
  const endpoint = lookup(ENDPOINT, config, env);
  if (endpoint === undefined) {
    throw new ConfigurationError(
      `cloudinfra: no API endpoint is configured: ${howToSet(ENDPOINT)}`,
    );
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigurationError(
      `cloudinfra: ${ENDPOINT.configKey} is not a valid URL (${JSON.stringify(endpoint)}); expected https://host[:port]`,
    );
  }
  if (url.protocol !== "https:") {
    throw new ConfigurationError(
      `cloudinfra: ${ENDPOINT.configKey} must use https:// (got ${url.protocol}//${url.host}); the API refuses plain HTTP and the key must not travel in clear`,
    );
  }
  const apiKey = lookup(API_KEY, config, env);
  if (apiKey === undefined) {
    throw new ConfigurationError(
      `cloudinfra: no API key is configured: ${howToSet(API_KEY, true)}`,
    );
  }
  const caCert = lookup(CA_CERT, config, env);
  return caCert === undefined
    ? { endpoint: endpoint.replace(/\/+$/, ""), apiKey }
    : { endpoint: endpoint.replace(/\/+$/, ""), apiKey, caCert };
}

/** The client options these settings stand for. */
export function clientOptions(settings: Settings): HttpClientOptions {
  const { endpoint, apiKey, caCert } = settings;
  return caCert === undefined ? { endpoint, apiKey } : { endpoint, apiKey, caCert };
}

/**
 * Tells settings apart, for caching one client per distinct settings, without keeping the API key
 * itself as a map key.
 */
export function settingsFingerprint(settings: Settings): string {
  return createHash("sha256")
    .update(`${settings.endpoint}\n${settings.apiKey}\n${settings.caCert ?? ""}`)
    .digest("hex");
}
