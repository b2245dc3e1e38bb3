/**
 * Field-level diffs on the native provider: the plugin's Diff returns a detailed diff, so
 * `preview --json` and `refresh --preview-only --json` (the preview digest, no engine-event
 * stream) name each changed field, and the drift report reads them from the digest alone.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyse, parsePulumiJson } from "../../src/drift-report";
import {
  EXIT_EXPECT_NO_CHANGES,
  EXIT_OK,
  type LocalEngine,
  type PreviewDigest,
} from "../support/local-engine/engine.ts";
import {
  detailedDiffsByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "drift");
const TIMEOUT = 120_000;
let fx: ProgramFixture;

const engineAt = (version: number): LocalEngine =>
  fx.engineWith({ config: { "drift:version": String(version) } });

/** `{name: [fields]}` as the drift report reads them from the digest's JSON text. */
function reportedFields(digest: PreviewDigest): Record<string, string[]> {
  const report = analyse(parsePulumiJson(JSON.stringify(digest)));
  return Object.fromEntries(report.rows.map((r) => [r.name, r.fields.map((f) => f.field)]));
}

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
  expectExit(await engineAt(1).up(), EXIT_OK);
}, TIMEOUT);
afterAll(async () => fx?.close());

describe("detailed diffs in the JSON digest", () => {
  it(
    "preview --json names each changed field of each update",
    async () => {
      const preview = await engineAt(2).preview();
      expectExit(preview, EXIT_OK);
      const digest = preview.digest();
      expect(detailedDiffsByName(digest)).toEqual({
        env: { color: "update" },
        ops: { description: "update" },
      });
      for (const step of digest.steps.filter((s) => s.detailedDiff !== undefined)) {
        expect(step.op).toBe("update");
        expect(step.diffReasons).toEqual(Object.keys(step.detailedDiff ?? {}));
      }
      expect(reportedFields(digest)).toEqual({ env: ["color"], ops: ["description"] });
    },
    TIMEOUT,
  );

  it(
    "refresh --preview-only --json names each field changed outside Pulumi; the drift report reads them from the digest",
    async () => {
      const [tag] = await fx.client.tags.list();
      if (tag === undefined) throw new Error("no tag");
      await fx.client.tags.update(tag.id, { name: "env", color: "#ABCDEF", data: "changed" });
      const group = (await fx.client.firewall.listPage()).data.find((g) => g.name === "fw");
      if (group === undefined) throw new Error("no group");
      await fx.client.firewall.update(group.id, {
        name: "fw",
        description: "edited in the console",
        rules: [{ action: "ACCEPT", proto: "tcp", dport: "2222" }],
      });

      const gate = await engineAt(1).refresh({ previewOnly: true, expectNoChanges: true });
      expectExit(gate, EXIT_EXPECT_NO_CHANGES);
      const digest = gate.digest();
      expect(detailedDiffsByName(digest)).toEqual({
        env: { color: "update", data: "update" },
        fw: { description: "add", rules: "update" },
      });
      for (const step of digest.steps.filter((s) => s.detailedDiff !== undefined)) {
        // As the CLI's digest (display/json.go rewrites a refresh step that has a detailed diff
        // from its outputs event): the read's op, `update`, and the state the read found.
        expect(step.op).toBe("update");
        expect(step.newState?.["outputs"]).not.toEqual(step.oldState?.["outputs"]);
      }
      expect(JSON.stringify(digest)).not.toContain(fx.emulator.apiKey);
      // As the CLI's (RefreshStep.Apply): the stack and the provider have refresh steps that keep
      // their state, so a digest still reads as a refresh when every custom resource drifted.
      const stackAndProviders = digest.steps.filter(
        (s) => s.urn.includes("::pulumi:pulumi:Stack::") || s.urn.includes("::pulumi:providers:"),
      );
      expect(stackAndProviders.map((s) => s.op)).toEqual(["refresh", "refresh"]);
      const everyCustomDrifted = {
        ...digest,
        steps: digest.steps.filter((s) => s.op !== "refresh" || stackAndProviders.includes(s)),
      };
      expect(everyCustomDrifted.steps.filter((s) => s.op === "refresh")).toHaveLength(2);
      expect(analyse(parsePulumiJson(JSON.stringify(everyCustomDrifted))).kind).toBe("refresh");
      const report = analyse(parsePulumiJson(JSON.stringify(digest)));
      expect(report.kind).toBe("refresh");
      expect(report.unexplained).toBe(0);
      expect(reportedFields(digest)).toEqual({
        env: ["color", "data"],
        fw: ["description", "rules"],
      });
      const color = report.rows
        .find((r) => r.name === "env")
        ?.fields.find((f) => f.field === "color");
      expect(color).toMatchObject({
        expected: { kind: "value", value: "#111111" },
        actual: { kind: "value", value: "#abcdef" },
      });
    },
    TIMEOUT,
  );
});
