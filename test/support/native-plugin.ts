/**
 * The native plugin process (`dist/native/plugin/main.js`) as the CLI starts it, configured for
 * an emulator: what tests that drive it call by call, as pulumi/pulumi's Go engine does, start.
 */
import { join } from "node:path";
import { CloudInfraClient } from "../../src/api/client";
import type { EmulatorOptions } from "../../src/emulator";
import { startTestEmulator, type TestEmulator } from "./emulator";
import { grpc, provrpc } from "./local-engine/proto.ts";
import { ProviderHost } from "./local-engine/provider-host.ts";
import { makeSecret } from "./local-engine/values.ts";
import { programEnv, ROOT } from "./programs";

/** The plugin's entry point in the built package. */
export const PLUGIN_MAIN = join(ROOT, "dist", "native", "plugin", "main.js");

/**
 * A plugin process given an engine address no engine answers (its warnings go to stderr),
 * configured with the emulator's endpoint, bootstrap key (a secret) and CA.
 */
export async function configuredPlugin(
  emulator: TestEmulator,
  env: NodeJS.ProcessEnv = {},
): Promise<ProviderHost> {
  const host = await ProviderHost.start({
    config: {},
    cwd: ROOT,
    project: "p",
    env: programEnv(env),
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

/** The plugin's RPCs a test sends by hand, with the request message it builds. */
export type PluginMethod =
  | "handshake"
  | "attach"
  | "configure"
  | "cancel"
  | "create"
  | "read"
  | "getPluginInfo"
  | "getSchema"
  | "checkConfig"
  | "diffConfig"
  | "check"
  | "diff"
  | "update"
  | "delete"
  | "invoke";

/** One call of the plugin's `ResourceProvider` service, as the engine sends it. */
export function unary<Req, Res>(host: ProviderHost, method: PluginMethod, req: Req): Promise<Res> {
  const c = new provrpc.ResourceProviderClient(host.address, grpc.credentials.createInsecure());
  return new Promise<Res>((ok, fail) => {
    (c[method] as unknown as (r: Req, cb: (e: Error | null, res: Res) => void) => void).call(
      c,
      req,
      (err, res) => {
        c.close();
        if (err) fail(err);
        else ok(res);
      },
    );
  });
}
