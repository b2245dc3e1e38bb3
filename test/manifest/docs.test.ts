/**
 * The manifests the documentation shows are valid: every YAML block of docs/gitops-and-drift.md
 * and docs/manifest.md passes the whole validation, catalogue included (an in-process emulator).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/lib/yaml-document";
import { validateManifest } from "../../src/manifest";
import { ROOT } from "../support/programs";
import { useCatalogueEmulator } from "./catalogue-fixture";

const fx = useCatalogueEmulator("docs");
const { dir } = fx;

function yamlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

describe.each(["docs/gitops-and-drift.md", "docs/manifest.md"])("the manifests in %s", (doc) => {
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
