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

/** An engine event stream of one refresh of `urn` from `old` to `live`. */
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
  const lines: unknown[] = [];
  let sequence = 0;
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
        '| Tag `web` | update | `serverIds` | `[12,13,"(known after the update)"]` | `[12,13]` |',
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
    const digest = JSON.stringify({
      steps: [
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
      ],
    });
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
    const digest = JSON.stringify({
      steps: [
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
      ],
    });
    expect(driftReport(digest)).toContain(
      "| User `ci` | update | `token` | `[secret]` | `[secret]` |",
    );
  });
});

describe("the engine's own paths", () => {
  it("are used when a provider gives a detailed diff, values read at each path", () => {
    const urn = "urn:pulumi:prod::web::aws:s3/bucketV2:BucketV2::assets";
    const digest = JSON.stringify({
      steps: [
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
      ],
    });
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
    const digest = JSON.stringify({
      steps: [
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
      ],
    });
    const report = driftReport(digest);
    expect(report).toContain('| Tag `web` | update | `data` | ``"`c`"`` | `a\\|b` |');
    expect(report).toContain('| `name` | `"web "` | `web` |');
    expect(report).toContain('| `color` | `#000000` | `""` |');
    expect(report).toMatch(/\| `note` \| `y` \| `x{79}…` \|/);
  });
});

describe("input that is not Pulumi JSON", () => {
  it("fails with what was expected, for empty input, other JSON and other lines", () => {
    expect(() => driftReport("")).toThrow(NotPulumiJsonError);
    expect(() => driftReport("")).toThrow(
      /the input is empty; expected the output of `pulumi preview --json`/,
    );
    expect(() => driftReport('{"name": "not pulumi", "sequence": "x"}')).toThrow(
      /line 1 is not a Pulumi engine event/,
    );
    expect(() => driftReport("[1, 2]")).toThrow(/the JSON is not a preview digest/);
    expect(() => driftReport("Previewing update (prod):\n")).toThrow(/line 1 is not JSON/);
  });

  it("reports the errors of a failed run beneath the table", () => {
    const digest = JSON.stringify({
      diagnostics: [
        { urn: "", message: "error: update failed\n", severity: "error" },
        { message: "warning: something", severity: "warning" },
      ],
    });
    expect(driftReport(digest)).toBe(
      "### No changes\n\nThe code matches the state.\n\n**Errors**\n\n- error: update failed\n",
    );
  });
});
