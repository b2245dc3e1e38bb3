/**
 * Issue 25 items 2 and 3: the report as JSON (checked against schema/drift-report.schema.json
 * with ajv), several runs (one per stack) in one report with a section each and a total, and
 * `notify`, which decides what a scheduled drift check tells people (new / same / changed /
 * resolved) from the stack's open issue, with a fingerprint of the drifted fields.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import {
  analyse,
  decide,
  driftReport,
  markerOf,
  parsePulumiJson,
  readMarker,
  renderMarkdown,
  toJsonReport,
  webhookBody,
} from "../../src/drift-report";
import { ROOT } from "../support/programs";
import { tempDir } from "../support/temp-dir";
import { refreshStream } from "./generate.mts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  exports: Record<string, unknown>;
};
const BIN = join(ROOT, pkg.bin["cloudinfra-drift-report"] ?? "missing");
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "schema", "drift-report.schema.json"), "utf8"));
const validate = new Ajv({ allErrors: true, strict: true }).compile(SCHEMA);
const dir = tempDir("drift-json-");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function cli(args: string[], input = "") {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const report = (text: string) => analyse(parsePulumiJson(text), "refresh");
const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name), "utf8");

describe("--format json", () => {
  it("is valid against the schema the package exports, for every kind of input", () => {
    expect(pkg.exports["./drift-report.schema.json"]).toBe("./schema/drift-report.schema.json");
    const inputs = [
      file("events.json", fixture("refresh-preview-only.events.stdout")),
      file("digest.json", fixture("refresh-preview-only.digest.stdout")),
      file("preview.json", fixture("preview.digest.stdout")),
      file("bad.json", "{}"),
    ];
    const { status, stdout } = cli(["--format", "json", ...inputs]);
    expect(status).toBe(1); // bad.json is not a run
    const json = JSON.parse(stdout);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(json.stacks.map((s: { verdict: string }) => s.verdict)).toEqual([
      "drift",
      "drift",
      "changes",
      "unreadable",
    ]);
    expect(json.total).toEqual({
      stacks: 4,
      verdicts: { drift: 2, changes: 1, unreadable: 1 },
      changedResources: 10,
    });
  });

  it("gives every field both sides as data: a list's items only on one side, a deletion", () => {
    const json = toJsonReport([
      { source: "x", report: report(fixture("refresh-preview-only.events.stdout")) },
    ]);
    const [stack] = json.stacks;
    expect(
      stack?.rows?.map((r) => [
        r.type,
        r.name,
        r.fields.map((f) => [f.field, f.expected, f.actual]),
      ]),
    ).toEqual([
      [
        "Server",
        "web-1",
        [["powerState", { kind: "value", value: "running" }, { kind: "value", value: "stopped" }]],
      ],
      [
        "Tag",
        "web",
        [["color", { kind: "value", value: "#0ea5e9" }, { kind: "value", value: "#ff0000" }]],
      ],
      ["SecurityGroup", "web", [["", { kind: "exists", id: "4" }, { kind: "deleted" }]]],
    ]);
    const preview = toJsonReport([
      { source: "p", report: analyse(parsePulumiJson(fixture("preview.digest.stdout"))) },
    ]);
    const serverIds = preview.stacks[0]?.rows
      ?.flatMap((r) => r.fields)
      .find((f) => f.field === "serverIds");
    expect([serverIds?.expected, serverIds?.actual]).toEqual([
      { kind: "list", length: 3, only: ["(known after the update)"] },
      { kind: "list", length: 2, only: [] },
    ]);
  });

  it("--json-out writes the same JSON beside the Markdown", () => {
    const out = join(dir, "out.json");
    const input = file("e.json", fixture("refresh-preview-only.events.stdout"));
    const { status, stdout } = cli(["--json-out", out, input]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^### Drift: 3 of 4 resources changed outside Pulumi\n/);
    expect(readFileSync(out, "utf8")).toBe(cli(["--format", "json", input]).stdout);
  });
});

describe("several runs, one per stack", () => {
  it("make one report: a total with a row per stack, then each stack's section", () => {
    const prod = file("prod.events", refreshStream({ resources: 3, drifted: 1, stack: "prod" }));
    const staging = file("staging.events", refreshStream({ resources: 2, stack: "staging" }));
    const broken = file("eu.events", "");
    const { status, stdout, stderr } = cli([prod, staging, broken]);
    expect(status).toBe(1);
    expect(stderr).toBe(
      `cloudinfra-drift-report: ${broken}: got empty input: nothing to read (did the command fail?); expected the whole output of \`pulumi preview --json\`, \`pulumi refresh --preview-only --json\` (a preview digest) or an engine event stream (\`--event-log FILE\`, or \`--json\` with PULUMI_ENABLE_STREAMING_JSON_PREVIEW set)\n`,
    );
    expect(stdout.split("\n").slice(0, 8)).toEqual([
      "## 3 stacks: 1 drift, 1 no drift, 1 not read",
      "",
      "| Stack | Verdict | Resources changed |",
      "|---|---|---|",
      "| `prod` | drift | 1 of 3 |",
      "| `staging` | no drift | 0 of 2 |",
      `| \`${broken}\` | not read | — |`,
      "",
    ]);
    expect(stdout).toContain(
      "### Drift: 1 of 3 resources changed outside Pulumi\n\nWhat runs differs from the state of stack `prod`",
    );
    expect(stdout).toContain("### No drift\n\nAll 2 resources of stack `staging`");
    expect(stdout).toContain(`### \`${broken}\`: not read`);
  });
});

describe("notify", () => {
  const drift1 = report(refreshStream({ resources: 3, drifted: 1 }));
  const drift2 = report(refreshStream({ resources: 3, drifted: 2 }));
  const clean = report(refreshStream({ resources: 3 }));

  it("opens an issue and fires the webhook on new drift", () => {
    expect(decide(drift1, undefined)).toEqual({
      stack: "prod",
      decision: "new",
      open: true,
      comment: false,
      close: false,
      webhook: true,
      fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      newFields: ["Tag tag-0 color"],
    });
  });

  it("stays silent while the same drift lasts, whatever else the issue holds", () => {
    const issue = `${renderMarkdown(drift1, { trailer: markerOf(drift1) })}\n\nA person's comment.`;
    expect(decide(report(refreshStream({ resources: 3, drifted: 1 })), issue)).toMatchObject({
      decision: "same",
      open: false,
      comment: false,
      webhook: false,
    });
  });

  it("comments when the drift changes; the webhook fires only for a field not reported before", () => {
    const issue = renderMarkdown(drift1, { trailer: markerOf(drift1) });
    expect(decide(drift2, issue)).toMatchObject({
      decision: "changed",
      comment: true,
      webhook: true,
      newFields: ["Tag tag-1 color"],
    });
    // Less drift than last time: a comment, no alarm.
    const wider = renderMarkdown(drift2, { trailer: markerOf(drift2) });
    expect(decide(drift1, wider)).toMatchObject({
      decision: "changed",
      comment: true,
      webhook: false,
      newFields: [],
    });
  });

  it("closes the issue when a run is clean, and does nothing for a failed run", () => {
    expect(decide(clean, "any issue")).toMatchObject({
      decision: "resolved",
      comment: true,
      close: true,
      webhook: false,
    });
    expect(decide(clean, undefined)).toMatchObject({
      decision: "clean",
      open: false,
      comment: false,
      close: false,
    });
    const failed = report(
      refreshStream({ resources: 3, drifted: 1 }).replace('"succeeded"', '"failed"'),
    );
    expect(decide(failed, undefined)).toMatchObject({
      decision: "unknown",
      open: false,
      webhook: false,
    });
  });

  it("reads back only its own marker, the last one", () => {
    expect(readMarker("no marker")).toBeUndefined();
    const text = `${markerOf(drift1)}\n${markerOf(drift2)}`;
    expect(readMarker(text)?.fingerprint).toBe(decide(drift2, undefined).fingerprint);
    expect(readMarker("<!-- cloudinfra-drift-report {broken -->")).toBeUndefined();
  });

  it("builds a Slack-compatible body, escaping what Slack reads as mentions and links", () => {
    const hostile = report(
      refreshStream({ resources: 1, drifted: 1, stack: "prod" }).replaceAll("tag-0", "<!channel>&"),
    );
    const result = decide(hostile, undefined);
    expect(webhookBody(hostile, result, "https://github.com/o/r/issues/7")).toEqual({
      text: [
        "New drift in stack prod: 1 of 1 resources changed outside Pulumi.",
        "• Tag &lt;!channel&gt;&amp; color",
        "<https://github.com/o/r/issues/7|The report>",
      ].join("\n"),
    });
  });

  it("as the command: prints the decision, writes the body with its marker and the webhook body", () => {
    const run = file("n.events", refreshStream({ resources: 3, drifted: 1 }));
    const body = join(dir, "body.md");
    const hook = join(dir, "hook.json");
    const first = cli(["notify", run, "--body", body, "--webhook-body", hook]);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ decision: "new", open: true, webhook: true });
    const posted = readFileSync(body, "utf8");
    expect(posted).toMatch(/^### Drift: 1 of 3 resources changed outside Pulumi\n/);
    expect(posted).toMatch(
      /\n<!-- cloudinfra-drift-report \{"fingerprint":"sha256:[0-9a-f]{64}","fields":\["[0-9a-f]{16}"\],"cut":false\} -->\n$/,
    );
    expect(JSON.parse(readFileSync(hook, "utf8")).text).toMatch(/^New drift in stack prod/);
    const issue = file("issue.md", posted);
    const again = cli(["notify", run, "--issue", issue, "--body", body]);
    expect(JSON.parse(again.stdout)).toMatchObject({ decision: "same", comment: false });
    const resolved = cli([
      "notify",
      file("c.events", refreshStream({ resources: 3 })),
      "--issue",
      issue,
      "--body",
      body,
    ]);
    expect(JSON.parse(resolved.stdout)).toMatchObject({ decision: "resolved", close: true });
    expect(readFileSync(body, "utf8")).toMatch(
      /^### Drift resolved\n\nA refresh of stack `prod` found every resource matching what runs; closing\.\n/,
    );
  });
});

describe("the command on one file", () => {
  it("prints what driftReport returns", () => {
    expect(driftReport(fixture("refresh-preview-only.events.stdout"))).toBe(
      cli([file("again.json", fixture("refresh-preview-only.events.stdout"))]).stdout,
    );
  });
});
