/**
 * The README's quick start through the real Pulumi CLI (Automation API): up, a preview that
 * shows no changes, refresh, drift detection, destroy — against an emulator on a random port.
 * The CLI cannot be installed on every machine (its installers download binaries), so these
 * tests run when `pulumi` is on PATH and are skipped with a printed reason otherwise. The same
 * behaviours are proven without the CLI by test/engine/, which drives the real provider host.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/engine";

function pulumiVersion(): string | undefined {
  try {
    return execFileSync("pulumi", ["version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

const version = pulumiVersion();
if (version === undefined) {
  console.log(
    "skipping the Pulumi CLI tests: `pulumi` is not on PATH (install the CLI to run them; test/engine/ covers the same behaviours through the real provider host)",
  );
}

describe.skipIf(version === undefined)(`quick start with the Pulumi CLI (${version})`, () => {
  let emulator: TestEmulator;
  let client: CloudInfraClient;
  let stack: Stack;
  let backend: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({
      lifecycle: {
        durations: { provisioning: 50, starting: 50, stopping: 50, rebooting: 50, deleting: 50 },
      },
    });
    client = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey: emulator.apiKey,
      caCert: emulator.caCert,
    });
    backend = mkdtempSync(join(tmpdir(), "cloudinfra-e2e-"));
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "e2e", workDir: ROOT },
      {
        envVars: {
          PULUMI_BACKEND_URL: `file://${backend}`,
          PULUMI_CONFIG_PASSPHRASE: "e2e",
          CLOUDINFRA_ENDPOINT: emulator.endpoint,
          CLOUDINFRA_API_KEY: emulator.apiKey,
          CLOUDINFRA_CA_CERT: emulator.caCertFile,
        },
      },
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.workspace.removeStack("e2e", { force: true }).catch(() => undefined);
    await client?.close();
    await emulator?.close();
    rmSync(backend, { recursive: true, force: true });
  });

  it("deploys the server, key and tag and exports the IP, with the private key secret", async () => {
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.outputs["ip"]?.value).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(up.outputs["privateKey"]?.secret).toBe(true);
    const servers = await client.servers.list();
    expect(servers.map((s) => s.user_defined_name)).toEqual(["web-1"]);
  }, 300_000);

  it("previews no changes right after up", async () => {
    const preview = await stack.preview();
    const changes = Object.entries(preview.changeSummary).filter(([op]) => op !== "same");
    expect(changes).toEqual([]);
  }, 120_000);

  it("detects an out-of-band rename on refresh and puts it back on up", async () => {
    const [server] = await client.servers.list();
    await client.servers.update(server?.id ?? 0, { user_defined_name: "renamed-by-hand" });
    const refresh = await stack.refresh();
    expect(refresh.summary.resourceChanges?.["update"]).toBe(1);
    const up = await stack.up();
    expect(up.summary.resourceChanges?.["update"]).toBe(1);
    expect((await client.servers.list())[0]?.user_defined_name).toBe("web-1");
  }, 300_000);

  it("destroys everything", async () => {
    const destroy = await stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(await client.servers.list()).toEqual([]);
    expect(await client.tags.list()).toEqual([]);
  }, 300_000);
});
