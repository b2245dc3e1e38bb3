#!/usr/bin/env node
/**
 * `pulumi-resource-cloudinfra`: starts the plugin and prints its port on the first line of
 * standard output, which is how the CLI (and `@pulumi/pulumi/cmd/run-plugin`) learns where to
 * connect. Its argument is the engine's address, where warnings and debug lines go
 * (engine-log.ts).
 */
import { PluginServer } from "./server";

export async function serve(): Promise<PluginServer> {
  const server = new PluginServer(process.argv[2]);
  const port = await server.listen();
  process.stdout.write(`${port}\n`);
  server.preload();
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return server;
}

if (require.main === module) {
  serve().catch((err: unknown) => {
    process.stderr.write(`pulumi-resource-cloudinfra: ${String(err)}\n`);
    process.exit(1);
  });
}
