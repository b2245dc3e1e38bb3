import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { formatIssue } from "../../src/lib/yaml-document";
import { loadManifest } from "../../src/manifest/load";

/**
 * A scratch folder for one test file's manifests, removed after its tests, and `load`, which
 * writes `lines` as `infra.yaml` (and `files`, by name, beside it) in a folder of its own and
 * loads it; messages name it `infra.yaml` and come sorted.
 */
export function manifestScratch(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let counter = 0;
  function load(lines: string[], files: Record<string, string> = {}) {
    const folder = join(dir, String(++counter));
    mkdirSync(folder);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
    writeFileSync(join(folder, "infra.yaml"), `${lines.join("\n")}\n`);
    const loaded = loadManifest(join(folder, "infra.yaml"));
    const messages = loaded.issues
      .map((i) => formatIssue({ ...i, file: "infra.yaml" }))
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    return { loaded, messages, folder };
  }
  return { dir, load };
}
