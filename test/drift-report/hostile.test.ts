/**
 * Issue 26, findings 7 and 18: the drift report under hostile input. A live value is text an
 * attacker wrote, and it must stay text in the pull-request comment; inputs of growing size and
 * depth always get a report or a clear error, at a cost that grows linearly (compared large
 * against small in the same run, under a generous bound, so a quadratic walk fails the test and a
 * busy machine does not); two runs in one file are refused naming the line; an applied run says so;
 * and the Markdown stays under what a comment takes, pointing at the whole.
 */
import { spawnSync } from "node:child_process";
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyse,
  codeSpan,
  driftReport,
  InputBoundError,
  MARKDOWN_LIMIT,
  MAX_DEPTH,
  MAX_INPUT_BYTES,
  parsePulumiJson,
} from "../../src/drift-report";
import { ROOT } from "../support/programs";
import { tempDir } from "../support/temp-dir";
import { deepDigest, refreshStream } from "./generate.mts";

const BIN = join(ROOT, "dist", "drift-report", "cli.js");
const dir = tempDir("drift-hostile-");

/**
 * The content of `span` if it is exactly one CommonMark code span (a backtick run, then text with
 * no run of that length, then the same run), with GFM's table unescaping of `\|`; else undefined.
 */
function codeSpanContent(span: string): string | undefined {
  const open = /^`+/.exec(span)?.[0] ?? "";
  if (open === "" || !span.endsWith(open) || span.length < 2 * open.length + 1) return undefined;
  const inner = span.slice(open.length, -open.length);
  for (const run of inner.match(/`+/g) ?? []) if (run.length === open.length) return undefined;
  const stripped =
    inner.startsWith(" ") && inner.endsWith(" ") && inner.trim() !== ""
      ? inner.slice(1, -1)
      : inner;
  return stripped.replaceAll("\\|", "|");
}

/** A table row's cells, split at pipes that are not escaped. */
function cellsOf(row: string): string[] {
  return row
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((c) => c.trim());
}

const ATTACKS = [
  "``x``@octocat ![p](https://evil/p.png) [Approve](https://evil/) ``",
  "`````@octocat`````",
  "`@octocat",
  "@octocat`",
  "a | b | [Approve](https://evil/)",
  "line\n| x | [Approve](https://evil/) |",
  "</code><img src=x onerror=alert(1)>",
  "\\|`` ` ``\\",
];

describe("a live value an attacker wrote", () => {
  it.each(ATTACKS)("stays one code span of text in its cell: %j", (value) => {
    const text = driftReport(refreshStream({ resources: 1, drifted: 1, liveData: value }));
    const rows = text.split("\n").filter((l) => l.startsWith("| Tag"));
    expect(rows).toHaveLength(2);
    const data = rows.find((r) => r.includes("| `data` |"));
    const cells = cellsOf(data ?? "");
    expect(cells.slice(0, 3)).toEqual(["Tag `tag-0`", "`data`", "`x`"]);
    expect(cells).toHaveLength(4);
    // What shows is the value (as JSON when it would read wrongly as it is), and nothing renders.
    const shown = codeSpanContent(cells[3] ?? "");
    expect([value, JSON.stringify(value)]).toContain(shown);
  });

  it("the fence is one backtick longer than the longest run, padded when the text touches it", () => {
    expect(codeSpan("plain")).toBe("`plain`");
    expect(codeSpan("a``b")).toBe("```a``b```");
    expect(codeSpan("`x`")).toBe("`` `x` ``");
    expect(codeSpan("a|b\nc")).toBe("`a\\|b\\nc`");
  });

  it("in a resource name, an id or an error stays text too", () => {
    const value = "``@octocat [Approve](https://evil/)``";
    const events = refreshStream({ resources: 1, drifted: 1 }).replaceAll(
      "tag-0",
      value.replaceAll('"', ""),
    );
    const row = driftReport(events)
      .split("\n")
      .find((l) => l.startsWith("| Tag"));
    expect(codeSpanContent(cellsOf(row ?? "")[0]?.slice("Tag ".length) ?? "")).toBe(value);
    const failed = driftReport(
      JSON.stringify({ diagnostics: [{ message: value, severity: "error" }], duration: 5 }),
    );
    expect(failed).toContain(`- \`\`\` ${value} \`\`\`\n`);
  });
});

describe("a changed field", () => {
  /** A digest in which one Tag's `data` goes from `a` (the state) to `b` (the code). */
  function change(a: unknown, b: unknown): string {
    const urn =
      "urn:pulumi:prod::gitops::cloudinfra:index:Manifest$pulumi-nodejs:dynamic/cloudinfra:Tag::t";
    const state = (data: unknown) => ({ urn, custom: true, id: "1", inputs: { data } });
    return JSON.stringify({
      steps: [{ op: "update", urn, oldState: state(a), newState: state(b), diffReasons: ["data"] }],
      duration: 1,
      changeSummary: { update: 1 },
    });
  }

  it("never shows two identical cells, whatever the two values (property test)", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(value, value, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        const rows = driftReport(change(a, b))
          .split("\n")
          .filter((l) => l.startsWith("| Tag"));
        for (const row of rows) {
          const cells = cellsOf(row);
          expect(cells[3]).not.toBe(cells[4]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("long text shows the part around the first difference, and a long list at most 10 items", () => {
    const a = `${"a".repeat(300)}X${"b".repeat(300)}`;
    const b = `${"a".repeat(300)}Y${"b".repeat(300)}`;
    const row = driftReport(change(a, b))
      .split("\n")
      .find((l) => l.startsWith("| Tag"));
    expect(cellsOf(row ?? "").slice(3)).toEqual([
      `\`…${"a".repeat(24)}Y${"b".repeat(53)}…\``,
      `\`…${"a".repeat(24)}X${"b".repeat(53)}…\``,
    ]);
    const many = Array.from({ length: 25 }, (_, i) => i);
    const list = driftReport(change([], many))
      .split("\n")
      .find((l) => l.startsWith("| Tag"));
    expect(cellsOf(list ?? "").slice(3)).toEqual([
      "25 items, 25 only here: `0`, `1`, `2`, `3`, `4`, `5`, `6`, `7`, `8`, `9`, and 15 more",
      "0 items",
    ]);
  });
});

describe("inputs past a bound", () => {
  it("size: a file past 256 MiB is refused before it is read", () => {
    const file = join(dir, "huge.json");
    writeFileSync(file, "");
    truncateSync(file, MAX_INPUT_BYTES + 1); // sparse: no disk used
    const started = performance.now();
    const r = spawnSync(process.execPath, [BIN, file], { encoding: "utf8" });
    expect(r.stderr).toBe(
      `cloudinfra-drift-report: ${file}: ${MAX_INPUT_BYTES + 1} bytes; the report reads at most ${MAX_INPUT_BYTES} (256 MiB) per run\n`,
    );
    expect(r.status).toBe(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("errors: at most 20 listed, each at most 1,000 characters", () => {
    const diagnostics = Array.from({ length: 25 }, (_, i) => ({
      message: `${i}${"e".repeat(2000)}`,
      severity: "error",
    }));
    const text = driftReport(JSON.stringify({ diagnostics, duration: 5 }));
    const listed = text.split("\n").filter((l) => l.startsWith("- "));
    expect(listed).toHaveLength(21);
    expect(listed[0]).toBe(`- \`0${"e".repeat(998)}…\``);
    expect(listed[20]).toBe("- and 5 more errors");
  });

  it("nesting: 20,000 deep is refused by name, in a few milliseconds; 64 levels are read", () => {
    const started = performance.now();
    expect(() => parsePulumiJson(deepDigest(20_000))).toThrow(InputBoundError);
    expect(() => parsePulumiJson(deepDigest(20_000))).toThrow(
      `line 1: JSON nested deeper than ${MAX_DEPTH} levels; the report reads at most ${MAX_DEPTH} (a Pulumi run's own structure takes 6, its property values the rest)`,
    );
    expect(performance.now() - started).toBeLessThan(1000);
    // The step's own structure takes 5 levels (document, steps, step, state, inputs).
    expect(driftReport(deepDigest(MAX_DEPTH - 5))).toMatch(/^### Planned changes: 1 to update\n/);
  });

  it("nesting, through the command: exit 1 and the bound named, never a stack overflow", () => {
    const file = join(dir, "deep.json");
    writeFileSync(file, deepDigest(20_000));
    const r = spawnSync(process.execPath, [BIN, file], { encoding: "utf8" });
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 1, stdout: "" });
    expect(r.stderr).toBe(
      `cloudinfra-drift-report: ${file}: line 1: JSON nested deeper than 64 levels; the report reads at most 64 (a Pulumi run's own structure takes 6, its property values the rest)\n`,
    );
  });

  it("two event streams in one file: refused at the line the second starts, drift-then-clean included", () => {
    const drift = refreshStream({ resources: 2, drifted: 1 });
    const clean = refreshStream({ resources: 2 });
    const lines = drift.trim().split("\n").length;
    expect(() => driftReport(drift + clean)).toThrow(
      `line ${lines + 1}: a second run starts after the run's \`summaryEvent\` on line ${lines - 1}; give one run per file (several files make one report with a section each)`,
    );
    expect(() => driftReport(drift + clean.split("\n").slice(1).join("\n"))).toThrow(
      /^line \d+: an event follows the run after the run's `summaryEvent`/,
    );
  });

  it("two preview digests in one file: refused at the line the second starts", () => {
    const digest = JSON.stringify(JSON.parse(deepDigest(1)), null, 2);
    const n = digest.split("\n").length;
    expect(() => driftReport(`${digest}\n${digest}`)).toThrow(
      `line ${n + 1}: more follows the JSON document that ends on line ${n} (two runs in one file?)`,
    );
  });
});

describe("an applied run", () => {
  it("a refresh that was not a preview says the drift was written into the state", () => {
    const text = driftReport(refreshStream({ resources: 2, drifted: 1, isPreview: false }));
    expect(text.split("\n").slice(0, 3)).toEqual([
      "### Drift: 1 of 2 resources changed outside Pulumi",
      "",
      "What runs differed from the state of stack `prod` (project `gitops`); this refresh wrote it into the state.",
    ]);
    expect(text).toContain(
      "The state now holds what runs: change the code to match it, or `pulumi up` puts back what the code says.",
    );
  });
});

describe("size and cost", () => {
  /** Milliseconds to parse, analyse and render a stream of `n` resources, all drifted (best of 3). */
  function cost(n: number): { ms: number; markdown: string } {
    const text = refreshStream({ resources: n, drifted: n });
    let best = Number.POSITIVE_INFINITY;
    let markdown = "";
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      markdown = driftReport(text);
      best = Math.min(best, performance.now() - started);
    }
    return { ms: best, markdown };
  }

  it("20,000 drifted resources: the Markdown stays under the cap, says how many rows it left out and where the whole is", () => {
    const text = refreshStream({ resources: 20_000, drifted: 20_000 });
    const markdown = driftReport(text);
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toMatch(/^### Drift: 20000 of 20000 resources changed outside Pulumi\n/);
    const shown = markdown.split("\n").filter((l) => l.startsWith("| Tag")).length;
    expect(markdown).toContain(
      `| Tag \`tag-${shown - 1}\` | \`color\` | \`#000000\` | \`#ff0000\` |\n\n**${20_000 - shown} more rows of 20000 not shown**: this report is cut at 60,000 characters (what a pull-request comment takes). The whole report: \`cloudinfra-drift-report --format json\`.\n\n\`pulumi up\``,
    );
    expect(analyse(parsePulumiJson(text), "refresh").rows).toHaveLength(20_000);
  }, 60_000);

  it("grows linearly: 40,000 resources cost at most 8 times 10,000", () => {
    cost(2_000); // warm-up
    const small = cost(10_000);
    const large = cost(40_000);
    expect(large.ms / small.ms).toBeLessThanOrEqual(8);
  }, 120_000);
});
