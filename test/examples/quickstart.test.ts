/**
 * The README's quick-start program (examples/quickstart, the root Pulumi project) deploys against
 * the emulator and tears down again: run without the Pulumi CLI through the mini engine, which
 * sends every resource through the real dynamic-provider host.
 */
import { join } from "node:path";
import type { Output } from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { stackConfigFor, startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/engine";
import { MiniEngine } from "../support/mini-engine";

const FAST = { provisioning: 30, starting: 30, stopping: 30, rebooting: 30, deleting: 30 };

describe("quick start program", () => {
  let emulator: TestEmulator;
  let engine: MiniEngine;
  let client: CloudInfraClient;
  const saved = { ...process.env };

  beforeAll(async () => {
    emulator = await startTestEmulator({ lifecycle: { durations: FAST } });
    // The data sources run in the program's process and read the same settings as the README's
    // `eval "$(npm run -s emulator:env)"` sets.
    process.env["CLOUDINFRA_ENDPOINT"] = emulator.endpoint;
    process.env["CLOUDINFRA_API_KEY"] = emulator.apiKey;
    process.env["CLOUDINFRA_CA_CERT"] = emulator.caCertFile;
    engine = await MiniEngine.start(stackConfigFor(emulator));
    client = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey: emulator.apiKey,
      caCert: emulator.caCert,
    });
  }, 60_000);

  afterAll(async () => {
    process.env = saved;
    await engine?.close();
    await client?.close();
    await emulator?.close();
  });

  it("deploys a key, a running VPS S server with the newest Ubuntu, and a tag", async () => {
    const program = require(join(ROOT, "examples", "quickstart", "index.js")) as Record<
      string,
      Output<unknown>
    >;
    const ip = await engine.value(program["ip"] as Output<string>);
    const status = await engine.value(program["status"] as Output<string>);
    const privateKey = await engine.value(program["privateKey"] as Output<string>);
    await engine.settled();

    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(status).toBe("running");
    expect(privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(engine.deployed.map((r) => r.type).sort()).toEqual([
      "pulumi-nodejs:dynamic/cloudinfra:Server",
      "pulumi-nodejs:dynamic/cloudinfra:SshKey",
      "pulumi-nodejs:dynamic/cloudinfra:Tag",
    ]);

    const [server] = await client.servers.list();
    expect(server?.user_defined_name).toBe("web-1");
    expect(server?.ip).toBe(ip);
    expect(server?.data.find((d) => d.name === "os")?.value).toBe("ubuntu-24.04");
    expect(server?.plan_id).toBe(
      (await client.catalogue.listPlans()).find((p) => p.name === "VPS S")?.id,
    );
    expect(server?.tags.map((t) => t.name)).toEqual(["web"]);
    const keys = await client.keys.list();
    expect(keys.map((k) => k.name)).toEqual(["deployer"]);
    // The API key and the private key never reach the provider host's logs.
    expect(engine.hostStderr).not.toContain(emulator.apiKey);
    expect(engine.hostStderr).not.toContain(privateKey.split("\n")[1] ?? "unreachable");
  }, 60_000);

  it("tears down everything it made", async () => {
    await engine.destroy();
    expect(await client.servers.list()).toEqual([]);
    expect(await client.tags.list()).toEqual([]);
    expect(await client.keys.list()).toEqual([]);
  }, 60_000);
});
