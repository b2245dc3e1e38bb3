/**
 * examples/gitops as its pipelines run it, through the local engine against the emulator: a
 * preview creates nothing, up deploys infra.yaml, a change to infra.yaml gives exactly the
 * expected steps, a manifest mistake fails the preview with every problem and registers nothing,
 * an out-of-band change fails the drift gate with exit code 7 and the drift report names it,
 * `up --refresh` repairs it, and destroy leaves nothing. The project is copied to a temporary
 * folder (infra.yaml changes between runs) whose node_modules is this repository's.
 */
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftReport } from "../../src/drift-report";
import type { RunResult } from "../support/local-engine/engine.ts";
import { EXIT_ERROR, EXIT_EXPECT_NO_CHANGES, EXIT_OK } from "../support/local-engine/engine.ts";
import { secretValue } from "../support/local-engine/values.ts";
import {
  expectExit,
  expectNothingLeft,
  nameOf,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const EXAMPLE = join(ROOT, "examples", "gitops");
const project = mkdtempSync(join(tmpdir(), "cloudinfra-gitops-"));
let fx: ProgramFixture;

/** What a run changed, by `<Class> <name>` (the manifest reuses names across kinds). */
function changes(result: RunResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const step of result.changes) {
    if (step.type === "pulumi:pulumi:Stack" || step.type.startsWith("pulumi:providers:")) continue;
    const op = ["create-replacement", "delete-replaced"].includes(step.op) ? "replace" : step.op;
    out[`${step.type.split(":").pop()} ${nameOf(step.urn)}`] = op;
  }
  return out;
}

function writeManifest(text: string): void {
  writeFileSync(join(project, "infra.yaml"), text);
}

beforeAll(async () => {
  for (const file of ["Pulumi.yaml", "index.ts", "infra.yaml", "package.json", "tsconfig.json"]) {
    copyFileSync(join(EXAMPLE, file), join(project, file));
  }
  // `pulumi-cloudinfra` resolves as after `npm install`: this repository links itself there.
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
  fx = await startProgramFixture(project);
});

afterAll(async () => {
  await fx?.close();
  rmSync(project, { recursive: true, force: true });
});

const ALL = {
  "SshKey deployer": "create",
  "SecurityGroup web": "create",
  "Role deployers": "create",
  "User ci": "create",
  "Server web-1": "create",
  "Server web-2": "create",
  "Tag web": "create",
  "Manifest infra": "create",
};

describe("examples/gitops through the local engine", () => {
  it("previews without creating, deploys infra.yaml, and redeploys with no change", async () => {
    const preview = await fx.engine.preview();
    expectExit(preview, EXIT_OK);
    expect(changes(preview)).toEqual(ALL);
    expect(await fx.client.servers.list()).toEqual([]);

    const up = await fx.engine.up();
    expectExit(up, EXIT_OK);
    expect(changes(up)).toEqual(ALL);
    const servers = await fx.client.servers.list();
    expect(Object.keys(up.outputs["serverIps"] as object).sort()).toEqual(["web-1", "web-2"]);
    for (const server of servers) {
      expect((up.outputs["serverIps"] as Record<string, string>)[server.user_defined_name]).toBe(
        server.ip,
      );
    }
    const apiKeys = secretValue(up.outputs["userApiKeys"] ?? null) as Record<string, string>;
    expect(apiKeys["ci"]).toEqual(expect.any(String));

    const again = await fx.engine.up();
    expectExit(again, EXIT_OK);
    expect(again.changes).toEqual([]);
  }, 180_000);

  it("a change to infra.yaml gives exactly the expected steps, and the preview report shows them", async () => {
    writeManifest(
      [
        "sshKeys:",
        "  deployer: {generate: true}",
        "securityGroups:",
        "  web:",
        "    description: SSH from the office, HTTP and HTTPS from anywhere",
        "    rules:",
        "      - { action: ACCEPT, proto: tcp, dport: 22, source: 203.0.113.0/24 }",
        "      - { action: ACCEPT, proto: tcp, dport: 443 }",
        "roles:",
        "  deployers:",
        "    description: CI reads servers and manages their firewall",
        "    permissions: [servers:read, firewall:read, firewall:write]",
        "servers:",
        "  web-1:",
        "    plan: VPS S",
        "    image: { nameRegex: '^ubuntu-', mostRecent: true }",
        "    sshKeys: [deployer]",
        "    securityGroups: [web]",
        "    firewallEnabled: true",
        "  web-2:",
        "    plan: VPS M",
        "    image: { nameRegex: '^ubuntu-', mostRecent: true }",
        "    sshKeys: [deployer]",
        "    securityGroups: [web]",
        "    firewallEnabled: true",
        "tags:",
        "  web: {color: '#22C55E', servers: [web-1, web-2]}",
      ].join("\n"),
    );
    const preview = await fx.engine.preview();
    expectExit(preview, EXIT_OK);
    expect(changes(preview)).toEqual({
      "SecurityGroup web": "update", // port 80 closed
      "Server web-2": "replace", // a plan cannot change in place
      "Tag web": "update", // colour, and the new web-2's id
      "User ci": "delete",
    });
    const report = driftReport(JSON.stringify(preview.digest()));
    expect(report).toMatch(/^### Planned changes: /);
    // The code side is what the Tag's check made of it: colours in lower case.
    expect(report).toContain("| Tag `web` | update | `color` | `#22c55e` | `#0ea5e9` |");
    expect(report).toContain("| Tag `web` | update | `serverIds[1]` | *known after the update* |");
    expect(report).toContain("| User `ci` | delete | *(resource)* | *absent* |");
    expect(report).toMatch(
      /\| Server `web-2` \| replace \| `planId` \(replaces\) \| `3` \| `2` \|/,
    );

    const up = await fx.engine.up();
    expectExit(up, EXIT_OK);
    expect(changes(up)).toEqual(changes(preview));
    expect((await fx.client.tags.list())[0]?.color).toBe("#22c55e");
  }, 180_000);

  it("a manifest mistake fails the preview with every problem, and nothing changes", async () => {
    writeManifest(
      [
        "servers:",
        "  web-1: {plan: VPS SS, image: ubuntu-24.04}",
        "tags:",
        "  web: {color: '#22C55E', servers: [web-1, web-3]}",
      ].join("\n"),
    );
    const preview = await fx.engine.preview();
    expectExit(preview, EXIT_ERROR);
    const errors = preview.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
    // The message alone, as the CLI prints a RunError: no JavaScript stack.
    expect(errors).toContainEqual(
      [
        "infra.yaml: 2 problems; nothing was registered",
        '  infra.yaml:2:17: servers.web-1.plan: no plan is named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?',
        '  infra.yaml:4:44: tags.web.servers[1]: no entry "web-3" in servers; did you mean "web-1"?',
      ].join("\n"),
    );
    // Every resource stays as it was: a failed program deletes nothing.
    expect(preview.changes.filter((c) => c.op !== "same")).toEqual([]);
  }, 180_000);

  it("an out-of-band change fails the drift gate with exit code 7, reported; up --refresh repairs it", async () => {
    copyFileSync(join(EXAMPLE, "infra.yaml"), join(project, "infra.yaml"));
    expectExit(await fx.engine.up(), EXIT_OK);
    const gate = await fx.engine.refresh({ previewOnly: true, expectNoChanges: true });
    expectExit(gate, EXIT_OK);

    // Someone deletes the tag in the console.
    const [tag] = await fx.client.tags.list();
    await fx.client.tags.delete(tag?.id ?? 0);

    const drift = await fx.engine.refresh({ previewOnly: true, expectNoChanges: true });
    expectExit(drift, EXIT_EXPECT_NO_CHANGES);
    expect(await fx.client.tags.list()).toEqual([]); // a preview changes nothing
    // As the drift workflows run it: `cloudinfra-drift-report --kind refresh refresh.json`.
    const report = driftReport(JSON.stringify(drift.digest()), { kind: "refresh" });
    expect(report).toMatch(/^### Drift: 1 of \d+ resources? changed outside Pulumi/);
    expect(report).toContain("| Tag `web` | *(resource)* | exists (id `");
    expect(report).toContain("*deleted outside Pulumi* |");

    const repair = await fx.engine.up({ refresh: true });
    expectExit(repair, EXIT_OK);
    expect((await fx.client.tags.list()).map((t) => t.name)).toEqual(["web"]);
    const after = await fx.engine.refresh({ previewOnly: true, expectNoChanges: true });
    expectExit(after, EXIT_OK);
  }, 180_000);

  it("destroys everything", async () => {
    expectExit(await fx.engine.destroy(), EXIT_OK);
    expect(fx.engine.resources()).toEqual([]);
    await expectNothingLeft(fx.client);
  }, 180_000);
});
