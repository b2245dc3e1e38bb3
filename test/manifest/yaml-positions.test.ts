/**
 * A text read the fast way (js-yaml) is located through lib/yaml-positions.ts, not through the
 * YAML library's document: every place must be the one the library gives. The library's answer
 * is had from the same text with a comment that holds `?` at its end, which sends the whole text
 * to the library (yaml-document.ts NOT_FAST) without moving anything before it.
 */
import fc from "fast-check";
import * as jsYaml from "js-yaml";
import { describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { z } from "zod";
import { formatIssue, type Path, type YamlSource } from "../../src/lib/yaml-document";
import { YamlPositions } from "../../src/lib/yaml-positions";
import { jsonValue } from "../support/yaml-arbitraries";
import { libraryText, parse } from "../support/yaml-source";

/** How many documents the YAML library built: locating a fast-read text must build none. */
const built = vi.hoisted(() => ({ documents: 0 }));
vi.mock("yaml", async (original) => {
  const yaml = await original<typeof import("yaml")>();
  return {
    ...yaml,
    parseDocument: (...args: Parameters<typeof yaml.parseDocument>) => {
      built.documents++;
      return yaml.parseDocument(...args);
    },
  };
});

/** Every path of `value`, and below each map and list one that is not there. */
function paths(value: unknown, prefix: PropertyKey[] = []): PropertyKey[][] {
  const out: PropertyKey[][] = [prefix];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push(...paths(item, [...prefix, i]));
    });
    out.push([...prefix, value.length], [...prefix, "x"]);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...prefix, key]));
    out.push([...prefix, "no such key"], [...prefix, 0]);
  } else {
    out.push([...prefix, "below a scalar"]);
  }
  return out;
}

/** Each path's place, at its value and at its key, by `source`. */
function places(source: YamlSource, all: readonly Path[]): string[] {
  return all.flatMap((path) =>
    (["value", "key"] as const).map((at) => {
      const { line, column } = source.locate(path, at);
      return `${JSON.stringify(path)} ${at} ${line}:${column}`;
    }),
  );
}

/**
 * `text`'s places read the fast way, and as the library gives them; `libraryBuilt`: whether
 * locating in the fast-read text needed the library's document after all.
 */
function both(text: string): { fast: string[]; library: string[]; libraryBuilt: boolean } {
  const library = parse(libraryText(text));
  const fast = parse(text);
  expect(fast.value).toEqual(library.value);
  const all = paths(fast.value);
  const before = built.documents;
  const located = places(fast, all);
  return { fast: located, library: places(library, all), libraryBuilt: built.documents > before };
}

describe("locating in a text read the fast way", () => {
  it.each([
    [
      "block maps and lists",
      "servers:\n  web-1:\n    status: running\n    tags: [a, b]\n    size:\n  web-2: {status: stopped}\n",
    ],
    [
      "a list of maps, at the parent's indent",
      "rules:\n- port: 22\n  source: 0.0.0.0/0\n-   port: 80\n    notes: [x,   y]\n",
    ],
    [
      "comments and blank lines everywhere",
      "# head\n\nservers: # after a key\n\n  # before an entry\n  web-1: # here\n    # and here\n    plan: VPS S # trailing\n",
    ],
    [
      "quoted keys and values, escapes, multi-line",
      "'a b': \"x\\ty\"\n\"c\": 'it''s'\nd: \"one\n  two\"\ne: plain\n  continued\n",
    ],
    ["block scalars", "a: |\n  one\n  two\nb: >-\n  folded\n  text\nc:\n  |\n    deeper\n"],
    ["flow collections over lines", "a: {x: 1,\n  y: [1,\n    2], z: }\nb: [ {p: q}, [r] ]\n"],
    ["nulls, explicit and empty", "a: ~\nb: null\nc:\nd: {e: ~, f: }\ng: [~, null]\n"],
    [
      "scalars of every core kind, as keys too",
      "1: int\n1.5: float\ntrue: bool\n0x1f: hex\n.inf: inf\nn: [3, -0, 1e3, .nan, yes, '3']\n",
    ],
    ["keys in an order JavaScript would not keep", "b: 1\n2: two\na: 3\n1: one\n"],
    ["a value on a line of its own", "a:\n  plain\nb:\n  [x, y]\nc:\n  {d: 1}\nd:\n  'q'\n"],
    ["a document marker", "---\na: 1\nb: [2]\n"],
    ["windows line ends", "a:\r\n  b: 1\r\n  c: [x]\r\n"],
    ["a text without a final line end", "a:\n  b: [1, 2]"],
    ["tabs after values and keys", "a:\t1\nb: {c:\t2}\n"],
    ["a root that is a list", "- a\n- {b: 1}\n- [c]\n"],
    ["a root that is a scalar", "just text\n"],
    ["deep nesting", "a:\n  b:\n    c:\n      - d:\n          - e: [f, {g: h}]\n"],
  ])("%s", (_what, text) => {
    const { fast, library, libraryBuilt } = both(text);
    expect(fast).toEqual(library);
    expect(libraryBuilt).toBe(false);
  });

  it.each([
    ["an empty list item", "a:\n  -\n  - b\n"],
    ["a single-pair map in a flow list", "a: [b: 1, c]\n"],
    ["a byte order mark", "\ufeffa: {b: 1}\n"],
    ["a document end marker", "a: {b: 1}\n...\n"],
  ])("asks the library where the index cannot say: %s", (_what, text) => {
    const { fast, library, libraryBuilt } = both(text);
    expect(fast).toEqual(library);
    expect(libraryBuilt).toBe(true);
  });

  it("on block and flow documents of any shape (generated)", () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, flow) => {
        const text = stringify(value, flow ? { collectionStyle: "flow" } : {});
        if (/[&!?]|^%|[\]}][ \t]*:/m.test(text)) return; // read by the library alone
        const { fast, library, libraryBuilt } = both(text);
        expect(fast).toEqual(library);
        return !libraryBuilt;
      }),
      { seed: 26, numRuns: 400 },
    );
  });
});

describe("texts the index would misplace are read and located by the library", () => {
  /** js-yaml's core schema (`~` is null), which the project's js-yaml types leave out. */
  const CORE_SCHEMA = (jsYaml as unknown as { CORE_SCHEMA: jsYaml.Schema }).CORE_SCHEMA;

  // The index places a tagged or anchored value at its tag or anchor, the library after it: such
  // a text must never be read the fast way (yaml-document.ts NOT_FAST), or line:col would move.
  it.each([
    ["a tag", "a: !!str b\n", 4, 10],
    ["an anchor", "a: &x b\n", 4, 7],
  ])("%s", (_what, text, indexColumn, libraryColumn) => {
    const index = YamlPositions.of(text, CORE_SCHEMA, { lookups: 0 });
    expect(index?.locate(["a"])).toEqual({ line: 1, column: indexColumn });
    const before = built.documents;
    const source = parse(text, "x.yaml");
    expect(built.documents).toBe(before + 1);
    const checked = source.validate(z.object({ a: z.number() }));
    expect(checked.ok ? [] : checked.issues.map(formatIssue)).toEqual([
      `x.yaml:1:${libraryColumn}: a: expected a number (got "b")`,
    ]);
  });
});
