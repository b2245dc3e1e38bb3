/**
 * YAML checking is linear in the document (issue 26, finding 6: the duplicate-key check and the
 * location of each issue walked the map, 27 s at 40,000 entries). The work is counted where it
 * can be (nodes visited, entries looked up); time is compared large against small in the same
 * run under a bound generous enough for a busy machine (8x for 4x the entries), and the figures
 * themselves are `npm run bench -- manifest-scale`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { YamlSource } from "../../src/lib/yaml-document";
import { loadManifest } from "../../src/manifest/load";

const dir = mkdtempSync(join(tmpdir(), "manifest-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `tags` tags over 3 servers; with `problems`, a bad colour and an undeclared server in each. */
function manifest(tags: number, problems: boolean): string {
  const lines = ["servers:", "  web-0: {plan: VPS S, image: ubuntu-24.04}", "tags:"];
  for (let i = 0; i < tags; i++) {
    lines.push(
      problems ? `  t${i}: {color: "red", servers: [db-${i}]}` : `  t${i}: {color: "#112233"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Loads a manifest of `tags` tags: CPU time, issues, work counted. */
function load(tags: number, problems: boolean) {
  const file = join(dir, `${tags}-${problems}.yaml`);
  writeFileSync(file, manifest(tags, problems));
  const cpu = process.cpuUsage();
  const loaded = loadManifest(file);
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: (used.user + used.system) / 1000,
    issues: loaded.issues,
    work: loaded.source?.work ?? { nodes: Number.NaN, lookups: Number.NaN },
  };
}

describe("a manifest of 10,000 and 40,000 entries", () => {
  it.each([false, true])(
    "costs 4x the work for 4x the entries (a problem in each: %s)",
    (problems) => {
      load(1000, problems); // compiles what the first load would pay for
      const small = load(10_000, problems);
      const large = load(40_000, problems);
      expect(large.issues).toHaveLength(problems ? 80_000 : 0);
      // Every node and key once (t0, its map, color, its value; with problems servers, the list,
      // its item too), and with problems each issue's place found through an index of its map.
      const perEntry = problems ? 7 : 4;
      expect(small.work.nodes).toBe(perEntry * 10_000 + 11);
      expect(large.work.nodes).toBe(perEntry * 40_000 + 11);
      expect(large.work.lookups).toBeLessThanOrEqual(4 * small.work.lookups + 10);
      expect(large.cpuMs / small.cpuMs).toBeLessThan(8);
      if (!problems) return;
      // The last entry's problems, each where it is, as the first entry's are.
      const last = large.issues.filter((i) => i.path.startsWith("tags.t39999."));
      expect(last.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).sort()).toEqual([
        '40003:19 tags.t39999.color: expected a colour of the form #RRGGBB, like #ff00aa (got "red")',
        '40003:36 tags.t39999.servers[0]: no entry "db-39999" in servers; servers has: web-0',
      ]);
    },
    180_000,
  );
});

describe("duplicate keys", () => {
  it("are found in one pass over a map of 40,000 keys, each located", () => {
    const lines = ["tags:"];
    for (let i = 0; i < 40_000; i++) lines.push(`  t${i % 20_000}: {color: "#112233"}`);
    const parsed = YamlSource.parse(`${lines.join("\n")}\n`, "big.yaml");
    if (!Array.isArray(parsed)) throw new Error("duplicates not found");
    expect(parsed).toHaveLength(20_000);
    expect(parsed[0]).toEqual({
      file: "big.yaml",
      line: 20_002,
      column: 3,
      path: "",
      message: "YAML syntax: map keys must be unique",
    });
  });
});
