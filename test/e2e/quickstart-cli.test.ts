/**
 * The README's quick start through the real Pulumi CLI (Automation API): up, a preview that
 * shows no changes, refresh, drift detection, destroy — against an emulator on a random port.
 * The CLI is `pulumi` on PATH, or, with `CLOUDINFRA_E2E=1`, the official `pulumi` npm package
 * (`npx pulumi`, which downloads the CLI on first use). Where neither can be had (no network
 * beyond the npm registry), the tests are skipped with the printed reason; the same behaviours
 * run through the local engine in test/programs/ on every machine.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/programs";
import { tempDir } from "../support/temp-dir";

function versionOf(command: string, args: string[] = []): string | undefined {
  try {
    const out = execFileSync(command, [...args, "version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 300_000,
    }).trim();
    return /^v?\d+\.\d+/.test(out.split("\n").at(-1) ?? "") ? out.split("\n").at(-1) : undefined;
  } catch {
    return undefined;
  }
}

/** The CLI's version, putting the npm package's CLI first on PATH when that is what runs. */
function findCli(): { version?: string; reason?: string } {
  const onPath = versionOf("pulumi");
  if (onPath !== undefined) return { version: onPath };
  if (process.env["CLOUDINFRA_E2E"] !== "1") {
    return {
      reason:
        "`pulumi` is not on PATH; set CLOUDINFRA_E2E=1 to fetch it with the official npm package (npx pulumi)",
    };
  }
  const fromNpm = versionOf("npx", ["--yes", "pulumi"]);
  if (fromNpm === undefined) {
    return {
      reason:
        "CLOUDINFRA_E2E=1, but `npx pulumi version` could not install the CLI (it downloads the binary, which needs network access beyond the npm registry)",
    };
  }
  const bin = tempDir("pulumi-npx-");
  writeFileSync(join(bin, "pulumi"), '#!/bin/sh\nexec npx --yes pulumi "$@"\n');
  chmodSync(join(bin, "pulumi"), 0o755);
  process.env["PATH"] = `${bin}${delimiter}${process.env["PATH"] ?? ""}`;
  return { version: fromNpm };
}

const { version, reason } = findCli();
if (version === undefined) {
  console.log(
    `skipping the Pulumi CLI tests: ${reason}; test/programs/ runs the same behaviours through the local engine`,
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
