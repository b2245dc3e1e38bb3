/**
 * The user's sequence of finding 4 (issue 19): the quick start is up, its tag's colour is changed
 * outside Pulumi, and `preview --refresh --json` is read by the drift report. The plan of such a
 * run compares the code with what runs (the refreshed state), not with the state; read with the
 * default `--kind` it once came out as drift with the code in the "Live" column and a resource
 * counted twice. Run through the local engine against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyse, driftReport, parsePulumiJson } from "../../src/drift-report";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import { expectExit, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

describe("pulumi preview --refresh --json, read by the drift report", () => {
  let fx: ProgramFixture;
  let json: string;

  beforeAll(async () => {
    fx = await startProgramFixture(ROOT);
    expectExit(await fx.engine.up(), EXIT_OK);
    const [tag] = await fx.client.tags.list();
    if (tag === undefined) throw new Error("the quick start made no tag");
    await fx.client.tags.update(tag.id, { name: tag.name, color: "#ff0000" });
    const preview = await fx.engine.preview({ refresh: true });
    expectExit(preview, EXIT_OK);
    json = JSON.stringify(preview.digest(), null, 4);
  });
  afterAll(async () => fx?.close());

  it("is read by default as planned changes against what runs: the code, then the live value", () => {
    const run = parsePulumiJson(json);
    expect(run).toMatchObject({ kind: "preview", refreshed: true });
    expect(driftReport(json)).toBe(
      [
        "### Planned changes: 1 to update",
        "",
        "What `pulumi up --refresh` would change of stack `dev` (project `cloudinfra-quickstart`), against what runs (the refreshed state).",
        "",
        "| Resource | Change | Field | In the code | Live (refreshed) |",
        "|---|---|---|---|---|",
        "| Tag `web` | update | `color` | `#0ea5e9` | `#ff0000` |",
        "",
      ].join("\n"),
    );
  });

  it("reads the same with --kind preview", () => {
    expect(driftReport(json, { kind: "preview" })).toBe(driftReport(json));
  });

  it("with --kind refresh reads only the refresh steps, and says the digest cannot tell", () => {
    const report = analyse(parsePulumiJson(json), "refresh");
    // The key, the server and the tag were refreshed; the plan's update is not a drift row.
    expect(report).toMatchObject({ resources: 3, rows: [], unexplained: 0, undetermined: 3 });
    const text = driftReport(json, { kind: "refresh" });
    expect(text).toMatch(/^### Drift unknown: 3 resources refreshed, outcome not in this JSON\n/);
    expect(text).not.toContain("No drift");
    expect(text).toContain("--event-log");
  });
});
