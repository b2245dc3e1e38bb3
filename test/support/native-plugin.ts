/**
 * The native plugin process (`dist/native/plugin/main.js`) as the CLI starts it, configured for
 * an emulator: what tests that drive it call by call, as pulumi/pulumi's Go engine does, start.
 */
import { join } from "node:path";
import { CloudInfraClient } from "../../src/api/client";
import type { EmulatorOptions } from "../../src/emulator";
import { startTestEmulator, type TestEmulator } from "./emulator";
import { ProviderHost } from "./local-engine/provider-host.ts";
import { makeSecret } from "./local-engine/values.ts";
import { programEnv, ROOT } from "./programs";

/** The plugin's entry point in the built package. */
export const PLUGIN_MAIN = join(ROOT, "dist", "native", "plugin", "main.js");

/**
 * A plugin process given an engine address no engine answers (its warnings go to stderr),
 * configured with the emulator's endpoint, bootstrap key (a secret) and CA.
 */
export async function configuredPlugin(emulator: TestEmulator): Promise<ProviderHost> {
  const host = await ProviderHost.start({
    config: {},
    cwd: ROOT,
    project: "p",
    env: programEnv(),
    plugin: { argv: [PLUGIN_MAIN, "127.0.0.1:1"], name: "pulumi-resource-cloudinfra" },
  });
  await host.configurePlugin({
    endpoint: emulator.endpoint,
    apiKey: makeSecret(emulator.apiKey),
    caCert: emulator.caCert,
  });
  return host;
}

/** An emulator, a client of it with the bootstrap key, and a plugin configured for it. */
export interface PluginFixture {
  emulator: TestEmulator;
  client: CloudInfraClient;
  host: ProviderHost;
  close(): Promise<void>;
}

export async function startPluginFixture(options: EmulatorOptions = {}): Promise<PluginFixture> {
  const emulator = await startTestEmulator(options);
  const client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  const host = await configuredPlugin(emulator);
  return {
    emulator,
    client,
    host,
    async close() {
      await host.close();
      await client.close();
      await emulator.close();
    },
  };
}
