/**
 * The plugin answers GetSchema with the package schema the package ships: what `pulumi package
 * add` and `pulumi package gen-sdk` generate SDKs from is the file test/native/schema.test.ts
 * keeps in step with the sources.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_SCHEMA_FILE } from "../../src/native/package";
import { PluginServer } from "../../src/native/plugin/server";
import { grpc, provproto, provrpc } from "../support/local-engine/proto";
import { ROOT } from "../support/programs";

let server: PluginServer;
let client: InstanceType<typeof provrpc.ResourceProviderClient>;

beforeAll(async () => {
  server = new PluginServer();
  const port = await server.listen();
  client = new provrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );
});

afterAll(async () => {
  client.close();
  await server.close();
});

describe("the plugin's GetSchema", () => {
  it("answers the shipped schema/pulumi-schema.json, unchanged", async () => {
    const schema = await new Promise<string>((ok, fail) => {
      client.getSchema(new provproto.GetSchemaRequest(), (err, res) =>
        err ? fail(err) : ok(res.getSchema()),
      );
    });
    expect(schema).toBe(readFileSync(join(ROOT, PACKAGE_SCHEMA_FILE), "utf8"));
    expect((JSON.parse(schema) as { name: string }).name).toBe("cloudinfra");
  });
});
