/**
 * Issue 19, finding 5: the README's drift walkthrough, rehearsed through the local engine as a
 * person runs it. Someone changes the quick start's tag outside Pulumi; the drift gate
 * (`refresh --preview-only --expect-no-changes`) exits 7 and writes the engine event stream
 * (`--event-log`, or `--json` with PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true), and
 * `cloudinfra-drift-report` names the field. Read from the preview digest instead, the report
 * counts the drift and points at the event stream: another command, not the same one.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePulumiJson } from "../../src/drift-report";
import { localEngineCli, writeEmulatorFile } from "../support/local-engine/by-hand.ts";
import { EXIT_EXPECT_NO_CHANGES, EXIT_OK } from "../support/local-engine/engine.ts";
import { expectExit, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const REPORT = join(ROOT, pkg.bin["cloudinfra-drift-report"] ?? "missing");

function driftReportCli(args: string[]) {
  return spawnSync(process.execPath, [REPORT, ...args], { encoding: "utf8" });
}

const DRIFTED_ROW = "| Tag `web` | `color` | `#0ea5e9` | `#ff0000` |";

describe("the drift walkthrough through the local engine", () => {
  let fx: ProgramFixture;
  let dir: string;
  let args: string[];

  beforeAll(async () => {
    fx = await startProgramFixture(ROOT);
    dir = join(fx.engine.options.stateFile, "..");
    args = [
      "--state",
      fx.engine.options.stateFile,
      "--emulator",
      writeEmulatorFile(dir, fx.emulator),
    ];
    expectExit(await fx.engine.up(), EXIT_OK);
    // Someone recolours the tag in the console.
    const [tag] = await fx.client.tags.list();
    await fx.client.tags.update(tag?.id ?? 0, { name: "web", color: "#ff0000" });
  });
  afterAll(async () => fx?.close());

  it("--event-log: the gate exits 7 and the report names the field, with nothing more to do", async () => {
    const log = join(dir, "refresh.events");
    const gate = await localEngineCli([
      "refresh",
      "--preview-only",
      "--expect-no-changes",
      "--event-log",
      log,
      ...args,
    ]).done;
    expect(gate.status, gate.stderr).toBe(EXIT_EXPECT_NO_CHANGES);
    const text = readFileSync(log, "utf8");
    // A whole run, in the CLI's shapes, with no secret in clear.
    const run = parsePulumiJson(text);
    expect(run).toMatchObject({ format: "events", kind: "refresh", refreshed: false, errors: [] });
    const kinds = text
      .trim()
      .split("\n")
      .map((l) => Object.keys(JSON.parse(l) as object).filter((k) => k.endsWith("Event"))[0]);
    expect(kinds[0]).toBe("preludeEvent");
    expect(kinds.slice(-2)).toEqual(["summaryEvent", "cancelEvent"]);
    expect(kinds).toContain("resOutputsEvent");
    expect(text).not.toContain(fx.emulator.apiKey);
    expect(text).not.toContain("PRIVATE KEY");

    const report = driftReportCli(["--kind", "refresh", log]);
    expect(report.status).toBe(0);
    expect(report.stdout).toMatch(/^### Drift: 1 of 3 resources changed outside Pulumi\n/);
    expect(report.stdout).toContain(DRIFTED_ROW);
    expect(report.stdout).not.toContain("this JSON does not say");
    expect(report.stdout).not.toContain("--event-log");
  });

  it("--json with streaming previews prints the same stream; the digest points at it", async () => {
    const streamed = await localEngineCli(["refresh", "--preview-only", "--json", ...args], {
      env: { PULUMI_ENABLE_STREAMING_JSON_PREVIEW: "true" },
    }).done;
    expect(streamed.status).toBe(EXIT_OK);
    const fromStdout = spawnSync(process.execPath, [REPORT, "--kind", "refresh"], {
      input: streamed.stdout,
      encoding: "utf8",
    });
    expect(fromStdout.stdout).toContain(DRIFTED_ROW);

    // The default --json of a preview is the digest: the drift is counted, the field not said,
    // and the advice is the event stream, not the command that made this JSON.
    const digest = await localEngineCli(["refresh", "--preview-only", "--json", ...args], {
      env: { PULUMI_ENABLE_STREAMING_JSON_PREVIEW: "" },
    }).done;
    expect(() => JSON.parse(digest.stdout)).not.toThrow();
    const report = spawnSync(process.execPath, [REPORT, "--kind", "refresh"], {
      input: digest.stdout,
      encoding: "utf8",
    });
    expect(report.stdout).toMatch(/^### Drift: 1 of 3 resources changed outside Pulumi\n/);
    expect(report.stdout).toContain("1 more resource changed, but this JSON does not say which");
    expect(report.stdout).toContain("`pulumi refresh --preview-only --event-log refresh.events`");
  });

  it("up --refresh --json prints the event stream of the repair, as the CLI does", async () => {
    const up = await localEngineCli(["up", "--refresh", "--json", ...args]).done;
    expect(up.status, up.stderr).toBe(EXIT_OK);
    const run = parsePulumiJson(up.stdout);
    expect(run).toMatchObject({ format: "events", kind: "preview", refreshed: true, errors: [] });
    const tag = (phase: string) =>
      run.steps.find((s) => s.urn.endsWith("Tag::web") && s.phase === phase)?.op;
    expect({ refresh: tag("refresh"), plan: tag("plan") }).toEqual({
      refresh: "update",
      plan: "update",
    });
    expect((await fx.client.tags.list())[0]?.color).toBe("#0ea5e9");
  });
});
