/**
 * The manifests the documentation shows are valid: every YAML block of README.md and
 * docs/manifest.md passes the whole validation, catalogue included (an in-process emulator).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatIssue } from "../../src/lib/yaml-document";
import { validateManifest } from "../../src/manifest";
import { startEmulatorForFunctions, stopAll } from "../functions/helpers";
import type { TestEmulator } from "../support/emulator";
import { ROOT } from "../support/programs";

let emulator: TestEmulator;
const dir = mkdtempSync(join(tmpdir(), "manifest-docs-"));

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
});

afterAll(async () => {
  await stopAll(emulator);
  rmSync(dir, { recursive: true, force: true });
});

function yamlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

describe.each(["README.md", "docs/manifest.md"])("the manifests in %s", (doc) => {
  it("are valid", async () => {
    const blocks = yamlBlocks(doc);
    expect(blocks.length).toBeGreaterThan(0);
    for (const [index, block] of blocks.entries()) {
      const file = join(dir, `${doc.replace(/\W/g, "-")}-${index}.yaml`);
      writeFileSync(file, block);
      const result = await validateManifest(file);
      expect(result.ok ? [] : result.issues.map(formatIssue)).toEqual([]);
    }
  });
});
