// What a user sees when a program has a mistake, run with `npm run local-engine` and its output
// captured (a pipe, as in CI): the CLI's display on stdout (the failing row says its error as the
// CLI's progress does, and the Diagnostics section holds each error once) and each error once on
// stderr; no stack trace, no "failed to register" echo, no colour codes, no property named twice;
// CLOUDINFRA_LOG=debug brings the stack trace back. The rules are src/lib/cli-output.ts's.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const root = join(__dirname, "..", "..");
let emulator: TestEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), "cloudinfra-quiet-errors-"));
  writeFileSync(
    join(dir, "emulator.json"),
    JSON.stringify({
      endpoint: emulator.endpoint,
      caCertFile: emulator.caCertFile,
      apiKey: emulator.apiKey,
    }),
  );
});

afterAll(async () => {
  await emulator?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/**
 * `npm run local-engine -- up` of test/programs/bad-inputs with one mistake, output piped. Not
 * spawnSync: the emulator runs in this process and must keep answering.
 */
function up(
  mistake: string,
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    join(root, "node_modules", ".bin", "node"),
    [
      join(root, "test", "support", "local-engine", "cli.ts"),
      "up",
      "--cwd",
      join(root, "test", "programs", "bad-inputs"),
      "--state",
      join(dir, `${mistake}.json`),
      "--emulator",
      join(dir, "emulator.json"),
      "--config",
      `cloudinfra-bad-inputs:mistake=${mistake}`,
    ],
    { env: { ...process.env, FORCE_COLOR: "", NO_COLOR: "", CLOUDINFRA_LOG: "", ...env } },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) =>
    child.once("close", (status) => resolve({ status, stdout, stderr })),
  );
}

function times(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** The display's Diagnostics section: from its heading to the Resources summary. */
function diagnostics(stdout: string): string {
  const start = stdout.indexOf("\nDiagnostics:\n");
  const end = stdout.indexOf("\nResources:\n", start);
  expect(start, "a Diagnostics section").toBeGreaterThanOrEqual(0);
  return stdout.slice(start, end < 0 ? undefined : end);
}

const ESC = "\u001b[";

describe("the local engine's CLI on a program's mistakes", { timeout: 180_000 }, () => {
  it("a tag colour that is not #RRGGBB: the property named once, no stack, no colour codes", async () => {
    const run = await up("tag-colour");
    const all = run.stdout + run.stderr;
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("  color: expected a colour of the form #RRGGBB, like #ff00aa\n");
    expect(all).not.toContain("color: color:");
    expect(times(diagnostics(run.stdout), "expected a colour of the form")).toBe(1);
    expect(times(run.stderr, "expected a colour of the form")).toBe(1);
    expect(all).not.toContain("failed to register");
    expect(all).not.toMatch(/^\s+at /m);
    expect(all).not.toContain(ESC);
  });

  it("a misspelt plan name: the data source's error once, with the plans there are, no stack", async () => {
    const run = await up("plan-name");
    const all = run.stdout + run.stderr;
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error: getPlan: no plan matches \{name: "VPS SS"\}.*"VPS S"/m);
    expect(times(diagnostics(run.stdout), "no plan matches")).toBe(1);
    expect(times(run.stderr, "no plan matches")).toBe(1);
    expect(all).not.toContain("unhandled exception");
    expect(all).not.toMatch(/^\s+at /m);
    expect(all).not.toContain(ESC);
  });

  it("a plan id that does not exist: the API's answer once, the field's complaint once, the valid ids listed", async () => {
    const run = await up("plan-id");
    const all = run.stdout + run.stderr;
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /^ \+ {2}pulumi-nodejs:dynamic\/cloudinfra:Server web \*\*creating failed\*\*/m,
    );
    for (const text of [diagnostics(run.stdout), run.stderr]) {
      expect(times(text, "POST /v1/servers failed: 400")).toBe(1);
      expect(times(text, "no plan 99")).toBe(1);
    }
    expect(run.stderr).toContain("the plan ids are 1 (VPS XS), 2 (VPS S), 3 (VPS M)");
    expect(all).not.toContain("failed to register");
    expect(all).not.toMatch(/^\s+at /m);
  });

  it("CLOUDINFRA_LOG=debug shows the stack trace of a data source's error", async () => {
    const run = await up("plan-name", { CLOUDINFRA_LOG: "debug" });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/no plan matches[\s\S]*^\s+at /m);
  });
});
