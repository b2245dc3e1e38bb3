/**
 * The CI files of examples/gitops (GitHub Actions and GitLab CI) parse, use only inputs the
 * actions document and flags the commands have, are valid shell, and wire the pipeline the
 * example promises: preview and an emulator rehearsal on pull requests, `up` on merge, and a
 * scheduled refresh of every stack in one list whose exit code 7 is reported as drift, with what
 * people hear decided by `cloudinfra-drift-report notify` (tested in test/drift-report).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { ROOT } from "../support/programs";
import {
  ACTION_INPUTS,
  PULUMI_ACTION_COMMANDS,
  pulumiCommands,
  unknownPulumiFlags,
} from "./documented-interfaces";

const EXAMPLE = join(ROOT, "examples", "gitops");
const WORKFLOWS = join(EXAMPLE, ".github", "workflows");

type Step = {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  if?: string;
  env?: Record<string, string>;
};
type Job = {
  "runs-on"?: string;
  steps?: Step[];
  env?: Record<string, string>;
  needs?: string;
  strategy?: { matrix?: Record<string, unknown> };
  concurrency?: { group: string };
  outputs?: Record<string, string>;
};
type Workflow = { name?: string; on: Record<string, unknown>; jobs: Record<string, Job> };
type GitLabJob = {
  stage?: string;
  rules?: { if: string }[];
  script: string[];
  variables?: Record<string, string>;
};

function parseYaml<T>(file: string): T {
  const doc = parseDocument(readFileSync(file, "utf8"), { prettyErrors: false });
  expect(doc.errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
  return doc.toJS() as T;
}

const workflows = Object.fromEntries(
  readdirSync(WORKFLOWS).map((f) => [f, parseYaml<Workflow>(join(WORKFLOWS, f))]),
);
const gitlab = parseYaml<Record<string, unknown>>(join(EXAMPLE, ".gitlab-ci.yml"));
const gitlabJobs = Object.entries(gitlab).filter(
  ([name, job]) =>
    !["stages", "default", "variables"].includes(name) &&
    !name.startsWith(".") &&
    typeof job === "object",
) as [string, GitLabJob][];
const STACKS = JSON.parse(readFileSync(join(EXAMPLE, "stacks.json"), "utf8")) as string[];

const steps = (w: Workflow): Step[] => Object.values(w.jobs).flatMap((j) => j.steps ?? []);
const scripts = (): { where: string; text: string }[] => [
  ...Object.entries(workflows).flatMap(([file, w]) =>
    steps(w).flatMap((s) => (s.run === undefined ? [] : [{ where: file, text: s.run }])),
  ),
  ...gitlabJobs.flatMap(([name, job]) => [
    ...((gitlab["default"] as { before_script?: string[] }).before_script ?? []).map((text) => ({
      where: ".gitlab-ci.yml default",
      text,
    })),
    ...job.script.map((text) => ({ where: `.gitlab-ci.yml ${name}`, text })),
  ]),
];

function helpOf(bin: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    bin: Record<string, string>;
  };
  const file = pkg.bin[bin];
  if (file === undefined) throw new Error(`package.json has no bin ${bin}`);
  return spawnSync(process.execPath, [join(ROOT, file), "--help"], { encoding: "utf8" }).stdout;
}

describe("GitHub Actions workflows", () => {
  it("are the three the example promises, each with triggers and jobs on a runner", () => {
    expect(Object.keys(workflows).sort()).toEqual(["drift.yml", "main.yml", "pull-request.yml"]);
    for (const w of Object.values(workflows)) {
      expect(Object.keys(w.jobs).length).toBeGreaterThan(0);
      for (const job of Object.values(w.jobs)) expect(job["runs-on"]).toBe("ubuntu-latest");
    }
  });

  it("use only actions whose inputs are known here, and only inputs those actions document", () => {
    for (const [file, w] of Object.entries(workflows)) {
      for (const step of steps(w)) {
        if (step.uses === undefined) continue;
        const action = ACTION_INPUTS[step.uses];
        expect(action, `${file}: ${step.uses} is not in documented-interfaces.ts`).toBeDefined();
        for (const input of Object.keys(step.with ?? {})) {
          expect(action?.inputs, `${file}: ${step.uses} has no input ${input}`).toContain(input);
        }
      }
    }
  });

  it("give pulumi/actions a command it accepts, and a stack with every command", () => {
    for (const w of Object.values(workflows)) {
      for (const step of steps(w).filter((s) => s.uses?.startsWith("pulumi/actions@"))) {
        const command = step.with?.["command"];
        if (command === undefined) continue; // installs the CLI only
        expect(PULUMI_ACTION_COMMANDS).toContain(command);
        expect(step.with?.["stack-name"]).toEqual(expect.any(String));
      }
    }
  });

  it("pull request: a preview of prod commented on the PR, and up then destroy against an emulator", () => {
    const w = workflows["pull-request.yml"] as Workflow;
    expect(Object.keys(w.on)).toEqual(["pull_request"]);
    const preview = steps(w).find((s) => s.with?.["command"] === "preview");
    expect(preview?.with).toMatchObject({ "stack-name": "prod", "comment-on-pr": true });
    const emulator = w.jobs["emulator"]?.steps ?? [];
    const start = emulator.findIndex((s) => s.run?.includes("npx cloudinfra-emulator"));
    const up = emulator.findIndex((s) => s.with?.["command"] === "up");
    const destroy = emulator.findIndex((s) => s.with?.["command"] === "destroy");
    expect(start).toBeGreaterThan(-1);
    expect(up).toBeGreaterThan(start);
    expect(destroy).toBeGreaterThan(up);
    // Destroyed even when up failed halfway, and on the same throwaway stack.
    expect(emulator[destroy]?.if).toBe("always()");
    expect(emulator[destroy]?.with?.["stack-name"]).toBe(emulator[up]?.with?.["stack-name"]);
    expect(String(emulator[up]?.with?.["cloud-url"])).toMatch(/^file:\/\//);
  });

  it("merge to main: pulumi up of prod, one operation at a time", () => {
    const w = workflows["main.yml"] as Workflow & { concurrency?: { group: string } };
    expect(w.on).toMatchObject({ push: { branches: ["main"] } });
    expect(steps(w).find((s) => s.with?.["command"] === "up")?.with?.["stack-name"]).toBe("prod");
    expect(w.concurrency?.group).toBe("infra-prod");
  });

  it("schedule: every stack of stacks.json, a preview-only refresh each, exit code 7 reported as drift", () => {
    const w = workflows["drift.yml"] as Workflow;
    expect(Object.keys(w.on)).toEqual(["schedule", "workflow_dispatch"]);
    expect(STACKS).toEqual(["prod", "staging"]);
    // One list: the stacks job reads stacks.json, the drift job's matrix is its output.
    expect(w.jobs["stacks"]?.steps?.find((s) => s.run !== undefined)?.run).toBe(
      'echo "list=$(jq -c . stacks.json)" >> "$GITHUB_OUTPUT"',
    );
    const drift = w.jobs["drift"] as Job;
    expect(drift.needs).toBe("stacks");
    expect(drift.strategy?.matrix).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression
      stack: "${{ fromJSON(needs.stacks.outputs.list) }}",
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression
    expect(drift.concurrency?.group).toBe("infra-${{ matrix.stack }}");
    const all = drift.steps ?? [];
    const refresh = all.find((s) => s.run?.includes("pulumi refresh"));
    expect(refresh?.run).toMatch(
      /pulumi refresh --stack "\$STACK" --preview-only --expect-no-changes --json > refresh\.json/,
    );
    expect(refresh?.run).toContain("7)");
    expect(refresh?.env?.["PULUMI_ENABLE_STREAMING_JSON_PREVIEW"]).toBe("true");
    const report = all.find((s) => s.run?.includes("cloudinfra-drift-report"));
    expect(report?.if).toBeUndefined(); // a clean run closes the issue, so it runs on 0 too
    expect(report?.run).toContain(
      'npx cloudinfra-drift-report --kind refresh --json-out drift.json refresh.json >> "$GITHUB_STEP_SUMMARY"',
    );
    expect(report?.run).toContain("npx cloudinfra-drift-report notify refresh.json");
    const text = readFileSync(join(WORKFLOWS, "drift.yml"), "utf8");
    expect(text).toContain("# ---- inventory (issue 25, item 1)");
  });
});

describe("what a drift check tells people", () => {
  const cases = (script: string) => [...script.matchAll(/^\s*(\w+)\)/gm)].map((m) => m[1]);
  const driftScripts = () => [
    (workflows["drift.yml"]?.jobs["drift"]?.steps ?? []).map((s) => s.run ?? "").join("\n"),
    gitlabJobs.find(([n]) => n === "drift")?.[1].script.join("\n") ?? "",
  ];

  it("acts on exactly the decisions that open, comment or close, and posts the webhook only when told", () => {
    for (const script of driftScripts()) {
      const decision = script.slice(script.indexOf('case "$(field decision)"'));
      expect(cases(decision.slice(0, decision.indexOf("esac")))).toEqual([
        "new",
        "changed",
        "resolved",
      ]);
      expect(script).toMatch(
        /if \[ "\$\(field webhook\)" = true \] && \[ -n "\$\{?DRIFT_WEBHOOK_URL/,
      );
      expect(script).toMatch(/--webhook-body webhook\.json/);
      expect(script).toMatch(/--data @webhook\.json "\$DRIFT_WEBHOOK_URL"/);
      // One issue per stack, found by its labels.
      expect(script).toContain("stack:$STACK");
    }
  });
});

describe("GitLab CI", () => {
  const rulesOf = (name: string) =>
    gitlabJobs.find(([n]) => n === name)?.[1].rules?.map((r) => r.if) ?? [];

  it("runs the same jobs on the same events", () => {
    expect(gitlabJobs.map(([n]) => n)).toEqual(["preview", "emulator", "deploy", "drift"]);
    // The stacks of the drift check: the same list as the GitHub workflow's stacks.json.
    expect(gitlab[".stacks"]).toEqual({ parallel: { matrix: [{ STACK: STACKS }] } });
    expect((gitlab["drift"] as { extends?: string }).extends).toBe(".stacks");
    expect(rulesOf("preview")).toEqual(['$CI_PIPELINE_SOURCE == "merge_request_event"']);
    expect(rulesOf("emulator")).toEqual(['$CI_PIPELINE_SOURCE == "merge_request_event"']);
    expect(rulesOf("deploy")).toEqual([
      '$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH',
    ]);
    expect(rulesOf("drift")).toEqual(['$CI_PIPELINE_SOURCE == "schedule"']);
    for (const [, job] of gitlabJobs) expect(gitlab["stages"]).toContain(job.stage);
  });

  it("up then destroy against an emulator, and drift from exit code 7 reported with the report", () => {
    const script = (name: string) =>
      gitlabJobs.find(([n]) => n === name)?.[1].script.join("\n") ?? "";
    expect(script("emulator")).toMatch(
      /npx cloudinfra-emulator[\s\S]+pulumi up[\s\S]+pulumi destroy/,
    );
    expect(script("drift")).toMatch(
      /pulumi refresh --stack "\$STACK" --preview-only --expect-no-changes --json/,
    );
    expect(script("drift")).toMatch(
      /7\)[\s\S]+npx cloudinfra-drift-report --kind refresh --json-out drift\.json refresh\.json/,
    );
    expect(script("preview")).toContain("npx cloudinfra-drift-report --kind preview preview.json");
  });
});

describe("every script", () => {
  it("is valid bash", () => {
    for (const { where, text } of scripts()) {
      // Expressions are replaced by the runner before the shell sees the script.
      const shell = text.replace(/\$\{\{[^}]*\}\}/g, "x");
      const check = spawnSync("bash", ["-n"], { input: shell, encoding: "utf8" });
      expect(check.stderr, `${where}:\n${text}`).toBe("");
    }
  });

  it("gives each pulumi command only flags it has", () => {
    const used = pulumiCommands(scripts());
    expect(used.map((u) => u.command)).toEqual(
      expect.arrayContaining(["preview", "up", "refresh", "destroy", "stack init", "login"]),
    );
    expect(unknownPulumiFlags(used)).toEqual([]);
  });

  it("calls the package's commands with options they have", () => {
    const text = scripts()
      .map((s) => s.text)
      .join("\n");
    const emulatorHelp = helpOf("cloudinfra-emulator");
    for (const flag of text
      .match(/(?<=npx cloudinfra-emulator )[^>\n]*/g)
      ?.join(" ")
      .match(/--[a-z-]+/g) ?? []) {
      expect(emulatorHelp).toContain(flag);
    }
    const reportHelp = helpOf("cloudinfra-drift-report");
    for (const flag of text
      .match(/(?<=npx cloudinfra-drift-report )[^>\n]*/g)
      ?.join(" ")
      .match(/--[a-z-]+/g) ?? []) {
      expect(reportHelp).toContain(flag);
    }
  });
});
