/**
 * `cloudinfra-drift-report`, the command the CI workflows run: the built bin of the package, on a
 * file or on standard input, with exit statuses a job can act on.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/programs";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
const BIN = join(ROOT, pkg.bin["cloudinfra-drift-report"] ?? "missing");
const FIXTURE = join(__dirname, "fixtures", "refresh-preview-only.events.stdout");

function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    input: input ?? "",
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("cloudinfra-drift-report", () => {
  it("is the package's bin, a Node script", () => {
    expect(readFileSync(BIN, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  it("reads a file and writes the Markdown report", () => {
    const { status, stdout, stderr } = run([FIXTURE]);
    expect({ status, stderr }).toEqual({ status: 0, stderr: "" });
    expect(stdout).toContain("### Drift: 3 of 4 resources changed outside Pulumi");
    expect(stdout).toContain("| Server `web-1` | `powerState` | `running` | `stopped` |");
  });

  it("reads standard input, with - or without a file", () => {
    const text = readFileSync(FIXTURE, "utf8");
    expect(run([], text).stdout).toBe(run([FIXTURE]).stdout);
    expect(run(["-"], text).stdout).toBe(run([FIXTURE]).stdout);
  });

  it("can be told to read the steps as a preview", () => {
    expect(run([FIXTURE, "--kind", "preview"]).stdout).toMatch(/^### Planned changes: /);
  });

  it("exits 1 naming the input when it is not Pulumi JSON", () => {
    const { status, stdout, stderr } = run([], "error: no stack named 'prod' found\n");
    expect(status).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^cloudinfra-drift-report: stdin: line 1 is not JSON; expected /);
  });

  // Issue 19, finding 3: each of these once printed "No changes. The code matches the state."
  // and exited 0, the one answer a drift gate must never give falsely.
  it.each([
    ["{}", "{}", "got an empty JSON object"],
    ["[]", "[]", "got an empty JSON array"],
    [
      "an error object",
      '{"error": "update failed"}',
      'got a JSON object with key error saying "update failed"',
    ],
    ["empty input", "", "got empty input"],
    [
      "a truncated run",
      readFileSync(FIXTURE, "utf8").split("\n").slice(0, 5).join("\n"),
      "got 5 engine events: no `summaryEvent`: the run did not finish",
    ],
  ])("exits 1 on %s, saying what it got, and prints no report", (_, input, got) => {
    const { status, stdout, stderr } = run([], input);
    expect({ status, stdout }).toEqual({ status: 1, stdout: "" });
    expect(stderr).toContain(`cloudinfra-drift-report: stdin: ${got}`);
  });

  it("exits 1 on a run that failed, after a report with no verdict", () => {
    const failed = readFileSync(FIXTURE, "utf8").replace(
      '"result":"succeeded"',
      '"result":"failed"',
    );
    const { status, stdout, stderr } = run([], failed);
    expect(status).toBe(1);
    expect(stdout).toMatch(/^### The refresh failed: no verdict\n/);
    expect(stderr).toBe("cloudinfra-drift-report: stdin: the run failed (1 error); no verdict\n");
  });

  it("exits 1 when the file cannot be read, and 2 on bad usage", () => {
    expect(run(["/nonexistent.json"])).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("cannot read /nonexistent.json"),
    });
    expect(run(["--kind", "diff", FIXTURE])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("--kind must be refresh or preview"),
    });
    expect(run(["-", "-"]).status).toBe(2);
    expect(run(["--format", "yaml", FIXTURE])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("--format must be markdown or json"),
    });
    expect(run(["--colour"]).status).toBe(2);
    expect(run(["--help"])).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/^Usage: cloudinfra-drift-report/),
    });
  });
});
