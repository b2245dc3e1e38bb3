/**
 * The drift report on Pulumi's JSON as the CLI prints it (fixtures/*.stdout, shaped by
 * pulumi/pulumi's display code: the preview digest of `ShowPreviewDigest`, indented and
 * HTML-escaped by Go's MarshalIndent, and the engine events of `ShowJSONEvents`, one per line).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyse, driftReport, NotPulumiJsonError, parsePulumiJson } from "../../src/drift-report";

const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name), "utf8");
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const URN = (type: string, name: string) =>
  `urn:pulumi:prod::gitops::cloudinfra:index:Manifest$pulumi-nodejs:dynamic/cloudinfra:${type}::${name}`;

/** A preview digest of a whole run (printed once the engine's summary arrived) with `steps`. */
function wholeDigest(steps: { op: string; [field: string]: unknown }[]): string {
  const changeSummary: Record<string, number> = {};
  for (const s of steps) changeSummary[s.op] = (changeSummary[s.op] ?? 0) + 1;
  return JSON.stringify({ steps, duration: 1_200_000_000, changeSummary });
}

/** An engine event stream of one whole refresh of `urn` from `old` to `live`. */
function refreshEvents(
  steps: {
    urn: string;
    op: string;
    old: Record<string, unknown>;
    live?: Record<string, unknown>;
  }[],
): string {
  const state = (urn: string, props: Record<string, unknown>) => ({
    type: "pulumi-nodejs:dynamic/cloudinfra:User",
    urn,
    custom: true,
    id: "21",
    parent: "",
    inputs: props,
    outputs: props,
    provider: "",
  });
  let sequence = 0;
  const lines: unknown[] = [{ sequence: sequence++, timestamp: 1, preludeEvent: { config: {} } }];
  for (const s of steps) {
    const metadata = {
      op: "refresh",
      urn: s.urn,
      type: "t",
      old: state(s.urn, s.old),
      new: state(s.urn, s.old),
      detailedDiff: null,
      provider: "",
    };
    lines.push({
      sequence: sequence++,
      timestamp: 1,
      resourcePreEvent: { metadata, planning: true },
    });
  }
  for (const s of steps) {
    const metadata = {
      op: s.op,
      urn: s.urn,
      type: "t",
      old: state(s.urn, s.old),
      new: s.live === undefined ? null : state(s.urn, s.live),
      detailedDiff: null,
      provider: "",
    };
    lines.push({
      sequence: sequence++,
      timestamp: 1,
      resOutputsEvent: { metadata, planning: true },
    });
  }
  const resourceChanges: Record<string, number> = {};
  for (const s of steps) resourceChanges[s.op] = (resourceChanges[s.op] ?? 0) + 1;
  lines.push(
    {
      sequence: sequence++,
      timestamp: 1,
      summaryEvent: { resourceChanges, isPreview: true, result: "succeeded" },
    },
    { sequence: sequence++, timestamp: 1, cancelEvent: {} },
  );
  return lines.map((l) => JSON.stringify(l)).join("\n");
}

describe("a refresh, as the engine event stream (PULUMI_ENABLE_STREAMING_JSON_PREVIEW)", () => {
  it("names every field that drifted, with the state's value and the live one, and what to do", () => {
    expect(driftReport(fixture("refresh-preview-only.events.stdout"))).toBe(
      [
        "### Drift: 3 of 4 resources changed outside Pulumi",
        "",
        "What runs differs from the state of stack `prod` (project `gitops`).",
        "",
        "| Resource | Field | In the state | Live |",
        "|---|---|---|---|",
        "| Server `web-1` | `powerState` | `running` | `stopped` |",
        "| Tag `web` | `color` | `#0ea5e9` | `#ff0000` |",
        "| SecurityGroup `web` | *(resource)* | exists (id `4`) | *deleted outside Pulumi* |",
        "",
        "`pulumi up` puts each of them back as the state and the code say; `pulumi refresh` accepts what runs into the state instead (then change the code to match).",
        "",
      ].join("\n"),
    );
  });

  it("shows an output-only change when no input changed", () => {
    const report = driftReport(
      refreshEvents([
        {
          urn: URN("Server", "web-1"),
          op: "update",
          old: { status: "running", ip: "10.0.0.1" },
          live: { status: "running", ip: "10.0.0.9" },
        },
      ]),
    );
    expect(report).toContain("| Server `web-1` | `ip` | `10.0.0.1` | `10.0.0.9` |");
  });

  it("reads a clean refresh as no drift", () => {
    const report = driftReport(
      refreshEvents([
        {
          urn: URN("Tag", "web"),
          op: "same",
          old: { color: "#000000" },
          live: { color: "#000000" },
        },
        {
          urn: URN("Tag", "db"),
          op: "same",
          old: { color: "#ffffff" },
          live: { color: "#ffffff" },
        },
      ]),
    );
    expect(report).toBe(
      "### No drift\n\nAll 2 resources of stack `prod` (project `gitops`) match what runs.\n",
    );
  });
});

describe("a refresh, as the preview digest", () => {
  it("names what it can and counts what Pulumi's digest leaves out, saying how to get it", () => {
    const report = driftReport(fixture("refresh-preview-only.digest.stdout"));
    expect(report).toContain("### Drift: 3 of 4 resources changed outside Pulumi");
    expect(report).toContain(
      "| SecurityGroup `web` | *(resource)* | exists (id `4`) | *deleted outside Pulumi* |",
    );
    expect(report).toContain("2 more resources changed, but this JSON does not say which");
    expect(report).toContain("PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true");
  });
});

describe("a preview of a code change", () => {
  it("lists each planned change: code against state, replacements marked, unknowns named", () => {
    expect(driftReport(fixture("preview.digest.stdout"))).toBe(
      [
        "### Planned changes: 1 to replace, 1 to update, 1 to create, 1 to delete",
        "",
        "What `pulumi up` would change of stack `prod` (project `gitops`).",
        "",
        "| Resource | Change | Field | In the code | In the state |",
        "|---|---|---|---|---|",
        "| Server `web-1` | replace | `planId` (replaces) | `3` | `2` |",
        "| Tag `web` | update | `color` | `#22c55e` | `#0ea5e9` |",
        "| Tag `web` | update | `serverIds` | 3 items, 1 only here: *known after the update* | 2 items |",
        "| Server `web-3` | create | *(resource)* | *declared* | *absent* |",
        "| User `ci` | delete | *(resource)* | *absent* | exists (id `21`) |",
        "",
      ].join("\n"),
    );
  });

  it("reads the kind from the steps, and can be told", () => {
    const run = parsePulumiJson(fixture("preview.digest.stdout"));
    expect(run).toMatchObject({ format: "digest", kind: "preview" });
    expect(parsePulumiJson(fixture("refresh-preview-only.events.stdout"))).toMatchObject({
      format: "events",
      kind: "refresh",
    });
    expect(analyse(run, "refresh").kind).toBe("refresh");
  });
});

describe("replacements and ids", () => {
  it("show a replacement once, and an id as a number or its text as the same value", () => {
    const urn = URN("Server", "web-2");
    const tag = URN("Tag", "web");
    const state = (u: string, inputs: Record<string, unknown>) => ({
      urn: u,
      custom: true,
      id: "2",
      type: "t",
      inputs,
    });
    const digest = wholeDigest([
      {
        op: "replace",
        urn,
        oldState: state(urn, { planId: 2 }),
        newState: state(urn, { planId: 3 }),
        replaceReasons: ["planId"],
        detailedDiff: null,
      },
      {
        op: "create-replacement",
        urn,
        oldState: state(urn, { planId: 2 }),
        newState: state(urn, { planId: 3 }),
        detailedDiff: null,
      },
      { op: "delete-replaced", urn, oldState: state(urn, { planId: 2 }), detailedDiff: null },
      {
        op: "update",
        urn: tag,
        oldState: state(tag, { serverIds: [1, 2], color: "#000000" }),
        newState: state(tag, { serverIds: ["1", "2"], color: "#ffffff" }),
        detailedDiff: null,
      },
    ]);
    const table = driftReport(digest)
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| Resource"));
    expect(table).toEqual([
      "| Server `web-2` | replace | `planId` (replaces) | `3` | `2` |",
      "| Tag `web` | update | `color` | `#ffffff` | `#000000` |",
    ]);
  });
});

describe("secrets", () => {
  it("never show, in either spelling, even when --show-secrets put the plaintext in the JSON", () => {
    const shown = { [SIG]: SECRET_SIG, plaintext: '"ck_live_rotated_key_0123456789"' };
    const hidden = { [SIG]: SECRET_SIG, ciphertext: "[secret]" };
    const report = driftReport(
      refreshEvents([
        {
          urn: URN("User", "ci"),
          op: "update",
          old: { apiKey: hidden, roleId: 9 },
          live: { apiKey: shown, roleId: 10 },
        },
      ]),
    );
    expect(report).not.toContain("ck_live");
    expect(report).toContain("| User `ci` | `roleId` | `9` | `10` |");
    // The digest spells secrets "[secret]"; a changed secret named by the engine shows as such.
    const digest = wholeDigest([
      {
        op: "update",
        urn: URN("User", "ci"),
        oldState: {
          urn: URN("User", "ci"),
          custom: true,
          id: "21",
          type: "t",
          inputs: { token: "[secret]" },
        },
        newState: {
          urn: URN("User", "ci"),
          custom: true,
          id: "21",
          type: "t",
          inputs: { token: "[secret]" },
        },
        diffReasons: ["token"],
        detailedDiff: null,
      },
    ]);
    expect(driftReport(digest)).toContain(
      "| User `ci` | update | `token` | `[secret]` | `[secret]` *(differs)* |",
    );
  });
});

describe("the engine's own paths", () => {
  it("are used when a provider gives a detailed diff, values read at each path", () => {
    const urn = "urn:pulumi:prod::web::aws:s3/bucketV2:BucketV2::assets";
    const digest = wholeDigest([
      {
        op: "update",
        urn,
        oldState: {
          urn,
          custom: true,
          id: "assets-1",
          type: "aws:s3/bucketV2:BucketV2",
          inputs: { tags: { "team.name": "web", env: "prod" }, rules: [{ days: 30 }] },
        },
        newState: {
          urn,
          custom: true,
          id: "assets-1",
          type: "aws:s3/bucketV2:BucketV2",
          inputs: { tags: { "team.name": "data", env: "prod" }, rules: [{ days: 90 }] },
        },
        diffReasons: ["tags", "rules"],
        detailedDiff: {
          'tags["team.name"]': { kind: "update", inputDiff: true },
          "rules[0].days": { kind: "update", inputDiff: true },
        },
      },
    ]);
    const report = driftReport(digest);
    expect(report).toContain(
      '| BucketV2 `assets` | update | `tags["team.name"]` | `data` | `web` |',
    );
    expect(report).toContain("| BucketV2 `assets` | update | `rules[0].days` | `90` | `30` |");
  });
});

describe("table cells", () => {
  it("escape pipes and backticks, shorten long values, and quote what would read wrongly", () => {
    const urn = URN("Tag", "web");
    const digest = wholeDigest([
      {
        op: "update",
        urn,
        oldState: {
          urn,
          custom: true,
          id: "7",
          type: "t",
          inputs: { data: "a|b", name: "web", color: "", note: "x".repeat(200) },
        },
        newState: {
          urn,
          custom: true,
          id: "7",
          type: "t",
          inputs: { data: "`c`", name: "web ", color: "#000000", note: "y" },
        },
        detailedDiff: null,
      },
    ]);
    const report = driftReport(digest);
    expect(report).toContain('| Tag `web` | update | `data` | ``"`c`"`` | `a\\|b` |');
    expect(report).toContain('| `name` | `"web "` | `web` |');
    expect(report).toContain('| `color` | `#000000` | `""` |');
    expect(report).toMatch(/\| `note` \| `y` \| `x{79}…` \|/);
  });
});

describe("input that is not a whole Pulumi run", () => {
  it("fails with what was expected, for empty input, other JSON and other lines", () => {
    expect(() => driftReport("")).toThrow(NotPulumiJsonError);
    expect(() => driftReport("")).toThrow(
      /got empty input: nothing to read .*; expected the whole output of `pulumi preview --json`/,
    );
    expect(() => driftReport('{"name": "not pulumi", "sequence": "x"}')).toThrow(
      /line 1 is not a Pulumi engine event \(got a JSON object with keys name, sequence\)/,
    );
    expect(() => driftReport("[1, 2]")).toThrow(/got a JSON array: not a preview digest/);
    expect(() => driftReport("Previewing update (prod):\n")).toThrow(/line 1 is not JSON/);
  });

  // Each of these once read "No changes. The code matches the state." with exit 0.
  it.each([
    ["{}", /^got an empty JSON object: no `duration`, so not a whole run/],
    ["[]", /^got an empty JSON array: not a preview digest/],
    [
      '{"error": "no stack named \'prod\' found"}',
      /^got a JSON object with key error saying "no stack named 'prod' found": no `duration`/,
    ],
    ['{"config": {}, "duration": 5}', /no `steps` and no error/],
    ["  \n", /^got empty input/],
  ])("refuses %j, saying what it got", (input, message) => {
    expect(() => driftReport(input)).toThrow(NotPulumiJsonError);
    expect(() => driftReport(input)).toThrow(message);
  });

  it("refuses an event stream cut short: mid-line, before its summary, or without its start", () => {
    const whole = fixture("refresh-preview-only.events.stdout").trimEnd();
    expect(driftReport(whole)).toContain("### Drift: 3 of 4 resources changed");
    expect(() => driftReport(whole.slice(0, whole.length - 40))).toThrow(
      /line \d+ is not JSON \(a run cut short\?\)/,
    );
    const lines = whole.split("\n");
    expect(() => driftReport(lines.slice(0, -1).join("\n"))).toThrow(
      /^got 9 engine events: no `summaryEvent`: the run did not finish \(cut short after sequence 8\)/,
    );
    expect(() => driftReport(lines.slice(1).join("\n"))).toThrow(
      /the first is not a `preludeEvent`/,
    );
  });

  it("reports the errors of a failed run, with no verdict", () => {
    const stack = "urn:pulumi:prod::gitops::pulumi:pulumi:Stack::gitops-prod";
    const digest = JSON.stringify({
      steps: [{ op: "same", urn: stack, detailedDiff: null }],
      diagnostics: [
        { urn: "", message: "error: update failed\n", severity: "error" },
        { message: "warning: something", severity: "warning" },
      ],
      duration: 5,
      changeSummary: { same: 1 },
    });
    expect(driftReport(digest)).toBe(
      [
        "### The preview failed: no verdict",
        "",
        "The run of stack `prod` (project `gitops`) stopped with 1 error; what it did not reach may differ too.",
        "",
        "**Errors**",
        "",
        "- `error: update failed`",
        "",
      ].join("\n"),
    );
    // A failed run before its first step still says why; a stream's summary says it failed.
    expect(
      driftReport(
        JSON.stringify({ diagnostics: [{ message: "boom", severity: "error" }], duration: 5 }),
        { kind: "refresh" },
      ),
    ).toMatch(/^### The refresh failed: no verdict\n[\s\S]*- `boom`\n$/);
    const failed = fixture("refresh-preview-only.events.stdout").replace(
      '"result":"succeeded"',
      '"result":"failed"',
    );
    expect(driftReport(failed)).toMatch(/^### The refresh failed: no verdict/);
    expect(driftReport(failed)).toContain("- `the run failed`");
  });
});
