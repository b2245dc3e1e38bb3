/**
 * examples/gitops deploys its infra.yaml against the emulator and tears down again, run without
 * the Pulumi CLI through the mini engine: every resource goes through the real dynamic-provider
 * host (Check, Create, Delete). What the CLI adds (previews, diffs across runs, refresh and its
 * exit code 7) is for the local engine.
 */
import { join } from "node:path";
import type * as pulumiType from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { stackConfigFor, startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/engine";
import { MiniEngine } from "../support/mini-engine";

const EXAMPLE = join(ROOT, "examples", "gitops");
const FAST = { provisioning: 30, starting: 30, stopping: 30, rebooting: 30, deleting: 30 };

/**
 * The mini engine sends every registration to the provider host; a component resource has no
 * provider, so registrations of components are answered here, as the engine answers them.
 */
function answerComponents(engine: MiniEngine): void {
  const monitor = engine.pulumi.runtime.getMonitor() as unknown as {
    mocks: pulumiType.runtime.Mocks;
  };
  const mocks = monitor.mocks;
  const register = mocks.newResource.bind(mocks);
  mocks.newResource = (args) => (args.custom ? register(args) : { id: "", state: args.inputs });
}

describe("gitops example", () => {
  let emulator: TestEmulator;
  let engine: MiniEngine;
  let client: CloudInfraClient;
  const saved = { ...process.env };
  const cwd = process.cwd();

  beforeAll(async () => {
    emulator = await startTestEmulator({ lifecycle: { durations: FAST } });
    // The manifest checks the catalogue from the program's process, with the program's settings.
    process.env["CLOUDINFRA_ENDPOINT"] = emulator.endpoint;
    process.env["CLOUDINFRA_API_KEY"] = emulator.apiKey;
    process.env["CLOUDINFRA_CA_CERT"] = emulator.caCertFile;
    engine = await MiniEngine.start(stackConfigFor(emulator));
    answerComponents(engine);
    client = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey: emulator.apiKey,
      caCert: emulator.caCert,
    });
  }, 60_000);

  afterAll(async () => {
    process.chdir(cwd);
    process.env = saved;
    await engine?.close();
    await client?.close();
    await emulator?.close();
  });

  it("deploys infra.yaml: two running servers with their key, group and tag, a role and its user", async () => {
    // Pulumi runs a program in its project's folder, where `file: "infra.yaml"` is found.
    process.chdir(EXAMPLE);
    const program = require(join(EXAMPLE, "index.ts")) as Record<
      string,
      pulumiType.Output<Record<string, string>>
    >;
    const serverIps = await engine.value(
      program["serverIps"] as pulumiType.Output<Record<string, string>>,
    );
    const keyFingerprints = await engine.value(
      program["keyFingerprints"] as pulumiType.Output<Record<string, string>>,
    );
    const userApiKeys = await engine.value(
      program["userApiKeys"] as pulumiType.Output<Record<string, string>>,
    );
    await engine.settled();

    expect(engine.deployed.map((r) => `${r.type.split(":").pop()} ${r.name}`).sort()).toEqual([
      "Role deployers",
      "SecurityGroup web",
      "Server web-1",
      "Server web-2",
      "SshKey deployer",
      "Tag web",
      "User ci",
    ]);
    const vpsS = (await client.catalogue.listPlans()).find((p) => p.name === "VPS S")?.id;
    const servers = await client.servers.list();
    expect(servers.map((s) => s.user_defined_name).sort()).toEqual(["web-1", "web-2"]);
    for (const server of servers) {
      expect(server.status).toBe("running");
      expect(server.plan_id).toBe(vpsS);
      expect(server.data.find((d) => d.name === "os")?.value).toBe("ubuntu-24.04");
      expect(server.tags.map((t) => t.name)).toEqual(["web"]);
      expect(serverIps[server.user_defined_name]).toBe(server.ip);
    }
    const group = engine.deployed.find(
      (r) => r.name === "web" && r.type.endsWith(":SecurityGroup"),
    );
    for (const server of engine.deployed.filter((r) => r.type.endsWith(":Server"))) {
      expect(server.outputs["attachedSecurityGroupIds"]).toEqual([Number(group?.id)]);
    }
    const role = engine.deployed.find((r) => r.type.endsWith(":Role"));
    expect(role?.outputs["permissions"]).toEqual([
      "firewall:read",
      "firewall:write",
      "servers:read",
    ]);
    expect(engine.deployed.find((r) => r.type.endsWith(":User"))?.outputs["roleId"]).toBe(
      Number(role?.id),
    );
    const [key] = await client.keys.list();
    expect(keyFingerprints).toEqual({ deployer: key?.fingerprint });
    expect(userApiKeys["ci"]).toEqual(expect.any(String));
    expect(await engine.pulumi.isSecret(program["userApiKeys"] as pulumiType.Output<unknown>)).toBe(
      true,
    );
    // The API key and the users' keys never reach the provider host's logs.
    expect(engine.hostStderr).not.toContain(emulator.apiKey);
    expect(engine.hostStderr).not.toContain(userApiKeys["ci"]);
  }, 60_000);

  it("tears down everything it made", async () => {
    await engine.destroy();
    expect(await client.servers.list()).toEqual([]);
    expect(await client.tags.list()).toEqual([]);
    expect(await client.keys.list()).toEqual([]);
  }, 60_000);
});
