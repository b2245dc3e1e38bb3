/**
 * docs/drift-and-adoption.md is a test: its shell blocks run in order with bash, as a person types
 * them, against an emulator this test starts (the one block that starts one is skipped). Find the
 * strays (exit 3), ignore the CI runners, write the import file, import it through the local
 * engine, and `preview --expect-no-changes` exits 0 with every importable kind adopted.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childOutput } from "../support/child-output";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/programs";
import { shellBlocks } from "../support/shell-blocks";

const DOC = "docs/drift-and-adoption.md";
const blocks = shellBlocks(readFileSync(join(ROOT, DOC), "utf8"), DOC, "doc-test");

let emulator: TestEmulator;
let dir: string;
let envFile: string;

/** Runs one block with the exports of the blocks before it; resolves to what it printed. */
async function runBlock(script: string): Promise<{ status: number | null; out: string }> {
  const lines = [
    "set -eo pipefail",
    `. ${envFile}`,
    `cd ${ROOT}`,
    script,
    `export -p > ${envFile}.next && mv ${envFile}.next ${envFile}`,
  ];
  const env = { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? dir, TMPDIR: dir };
  const run = await childOutput(spawn("bash", ["-c", lines.join("\n")], { env }));
  return { status: run.status, out: run.stdout + run.stderr };
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), "cloudinfra-adoption-doc-"));
  const ca = join(dir, "ca.pem");
  writeFileSync(ca, emulator.caCert);
  envFile = join(dir, "env.sh");
  // What `eval "$(npm run -s emulator:env)"` exports.
  writeFileSync(
    envFile,
    [
      `export CLOUDINFRA_ENDPOINT=${emulator.endpoint}`,
      `export CLOUDINFRA_API_KEY=${emulator.apiKey}`,
      `export CLOUDINFRA_CA_CERT=${ca}`,
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await emulator?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe(`${DOC}, its shell blocks in order`, () => {
  it("finds the strays, ignores the runners, imports the rest with no diff", async () => {
    expect(blocks.map((b) => b.mode)).toEqual(["skip", "run", "run", "run", "run", "run", "run"]);
    const outputs: string[] = [];
    for (const block of blocks.filter((b) => b.mode === "run")) {
      const run = await runBlock(block.script);
      expect(run.status, `${DOC}:${block.line}\n${run.out}`).toBe(0);
      outputs.push(run.out);
    }
    const [, up, find, adopt, imported, proof] = outputs;
    expect(up).toContain("Resources:\n    + 2 created\n");
    expect(find?.split("\n")[0]).toBe("### Inventory: 8 unmanaged objects, 0 conflicts, 0 missing");
    expect(find).toContain(
      "| default | User | unknown | 0 | unknown | 0 | unknown | 0 | unknown: the API cannot list users |",
    );
    expect(find?.trimEnd().split("\n").at(-1)).toBe("exit 3");
    // The import file: every importable kind, the runners left out.
    const file = JSON.parse(adopt?.slice(adopt.indexOf("{")) ?? "") as {
      resources: { type: string; name: string }[];
    };
    expect(file.resources.map((r) => [r.type.split(":")[2], r.name])).toEqual([
      ["SshKey", "oncall"],
      ["SecurityGroup", "hotfix-ssh"],
      ["Role", "auditors"],
      ["Server", "debug-box"],
      ["Tag", "incident-42"],
      ["SecurityGroupAttachment", "hotfix-ssh-on-debug-box"],
    ]);
    expect(adopt?.trimEnd().split("\n")[0]).toBe("exit 3");
    expect(imported).toContain("Resources:\n    = 6 imported\n");
    // preview --expect-no-changes exited 0 (set -e), then the inventory found nothing.
    expect(proof).toContain("Resources:\n    8 unchanged\n");
    expect(proof).toContain("### Inventory: every listed object is managed by one stack");
  }, 300_000);
});
