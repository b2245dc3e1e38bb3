/**
 * Issue 23, finding 5, replayed as the user met it: examples/gitops is up (a security group with
 * three rules), someone adds `ACCEPT tcp 3389 0.0.0.0/0` to the group outside Pulumi, and the
 * drift report reads the refresh. It once showed the same first 80 characters of the rule list
 * in both columns, so the opened RDP port was invisible, under `--kind preview` too.
 */
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SecurityGroupRequest } from "../../src/api/schemas/firewall";
import { analyse, driftReport, parsePulumiJson } from "../../src/drift-report";
import { EXIT_EXPECT_NO_CHANGES, EXIT_OK } from "../support/local-engine/engine.ts";
import { expectExit, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

const EXAMPLE = join(ROOT, "examples", "gitops");
const project = mkdtempSync(join(tmpdir(), "cloudinfra-added-rule-"));
let fx: ProgramFixture;
let events: string;
let digest: string;
let summary: Record<string, number>;
let upEvents: string;

const RDP = '`{"action":"ACCEPT","dport":"3389","proto":"tcp","source":"0.0.0.0/0"}`';

beforeAll(async () => {
  for (const file of ["Pulumi.yaml", "index.ts", "infra.yaml", "package.json", "tsconfig.json"]) {
    copyFileSync(join(EXAMPLE, file), join(project, file));
  }
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
  fx = await startProgramFixture(project);
  expectExit(await fx.engine.up(), EXIT_OK);
  const [group] = await fx.client.firewall.listAll();
  if (group === undefined) throw new Error("examples/gitops made no security group");
  expect(group.rules).toHaveLength(3);
  await fx.client.firewall.update(group.id, {
    name: group.name,
    description: group.description ?? "",
    rules: [
      ...group.rules.map(({ action, proto, dport, source }) => ({
        action,
        proto,
        ...(dport ? { dport } : {}),
        ...(source ? { source } : {}),
      })),
      { action: "ACCEPT", proto: "tcp", dport: "3389", source: "0.0.0.0/0" },
    ] as SecurityGroupRequest["rules"],
  });
  const drift = await fx.engine.refresh({ previewOnly: true, expectNoChanges: true });
  expectExit(drift, EXIT_EXPECT_NO_CHANGES);
  events = drift
    .events()
    .map((e) => JSON.stringify(e))
    .join("\n");
  digest = JSON.stringify(drift.digest(), null, 4);
  summary = drift.summary;
  const repair = await fx.engine.up({ refresh: true });
  expectExit(repair, EXIT_OK);
  upEvents = repair
    .events()
    .map((e) => JSON.stringify(e))
    .join("\n");
}, 240_000);

afterAll(async () => {
  await fx?.close();
  rmSync(project, { recursive: true, force: true });
});

describe("a rule added outside Pulumi to a group with three rules", () => {
  it("shows the added rule, and only it, in the live column", () => {
    const rows = driftReport(events, { kind: "refresh" })
      .split("\n")
      .filter((l) => l.includes("SecurityGroup"));
    expect(rows).toEqual([
      `| SecurityGroup \`web\` | \`rules\` | 3 items | 4 items, 1 only here: ${RDP} |`,
    ]);
  });

  it("shows it under --kind preview too (the refresh's read in the code's column)", () => {
    const rows = driftReport(events, { kind: "preview" })
      .split("\n")
      .filter((l) => l.includes("SecurityGroup"));
    expect(rows).toEqual([
      `| SecurityGroup \`web\` | update | \`rules\` | 4 items, 1 only here: ${RDP} | 3 items |`,
    ]);
  });

  it("counts as the engine's summary does: one resource changed, every other counted the same", () => {
    const report = analyse(parsePulumiJson(events), "refresh");
    const changed = (summary["update"] ?? 0) + (summary["delete"] ?? 0);
    expect(changed).toBe(1);
    expect(report.rows.length).toBe(changed);
    // Seven resources; the engine also counts the stack and the Manifest component (never the
    // default provider, an internal step), and the report says so instead of disagreeing silently.
    expect(report.resources).toBe(7);
    expect(driftReport(events, { kind: "refresh" }).split("\n").slice(0, 3)).toEqual([
      "### Drift: 1 of 7 resources changed outside Pulumi",
      "",
      "What runs differs from the state of stack `dev` (project `cloudinfra-gitops`). The engine's summary (8 same, 1 update) also counts the stack and 1 component.",
    ]);
    expect(report.engineSummary).toEqual(summary);
    // The digest counts the same drift without naming it, and points at the event stream.
    expect(driftReport(digest, { kind: "refresh" })).toMatch(
      /^### Drift: 1 of 7 resources changed outside Pulumi\n/,
    );
  });

  it("an up's event log is reported as applied, not as what up would change", () => {
    const text = driftReport(upEvents);
    expect(text).toMatch(
      /^### Applied: 1 updated\n\nWhat `pulumi up --refresh` changed of stack `dev`/,
    );
    expect(text).toContain(
      `| SecurityGroup \`web\` | update | \`rules\` | 3 items | 4 items, 1 only here: ${RDP} |`,
    );
  });
});
