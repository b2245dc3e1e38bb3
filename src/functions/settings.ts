/**
 * Where data sources find the API: they run in the Pulumi program's process, not in the provider
 * host, read the same settings as the resources (stack config `cloudinfra:*`, then `CLOUDINFRA_*`
 * variables) and use the client of the provider session of those settings
 * (src/resources/session.ts), so every lookup of a program reuses the same keep-alive
 * connections. The call wrapper is call.ts, the errors errors.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import type { CloudInfraClient } from "../api/client";
import { type ConfigSource, resolveSettings, type Settings } from "../config";

const NAMESPACE = "cloudinfra";

/**
 * Stack config as a {@link ConfigSource}. `config.get` (not `getSecret`) reads `apiKey` because
 * the client needs the plain text; the key then lives only inside the client, never in a result,
 * an Output or an error.
 */
function stackConfig(): ConfigSource {
  const config = new pulumi.Config(NAMESPACE);
  const prefix = `${NAMESPACE}:`;
  return {
    get: (key) => (key.startsWith(prefix) ? config.get(key.slice(prefix.length)) : undefined),
  };
}

/** The settings data sources use now: stack config first, then the environment. */
export function dataSourceSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return resolveSettings(stackConfig(), env);
}

/**
 * The client of these settings' provider session (`sessionFor` of src/resources/session.ts): every
 * data source of the program with these settings shares it, and the session registry, not this
 * module, owns it.
 */
export async function clientFor(settings: Settings): Promise<CloudInfraClient> {
  // Loaded on the first call, not with the package: the client (undici, every endpoint and its
  // schemas) is ~10 MB of a program's peak memory, and a program of resources alone never needs
  // it (the provider host has its own).
  const { sessionFor } = await import("../resources/session.ts");
  return sessionFor(settings).client;
}
