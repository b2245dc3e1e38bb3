/**
 * The generic YAML reader: syntax problems and schema problems come back all at once, each at
 * the line and column a person would look at, with the path of the value and what is allowed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { z } from "zod";
import {
  formatIssue,
  type LocatedIssue,
  quoteSpansLines,
  YamlSource,
} from "../../src/lib/yaml-document";
import { jsonValue } from "../support/yaml-arbitraries";
import { libraryText, parse } from "../support/yaml-source";

const Seed = z.strictObject({
  servers: z.record(
    z.string(),
    z.strictObject({
      status: z.enum(["running", "stopped"]),
      tags: z.array(z.string()).optional(),
      size: z.number().optional(),
    }),
  ),
});

describe("YamlSource.parse", () => {
  it("reports every syntax problem with its line and column, and nothing else", () => {
    const issues = YamlSource.parse(
      "servers:\n  a:\n    status: running\n    status: stopped\n  b: [1, 2\n",
      "seed.yaml",
    );
    expect(Array.isArray(issues)).toBe(true);
    expect((issues as LocatedIssue[]).map(formatIssue)).toEqual([
      "seed.yaml:4:5: YAML syntax: map keys must be unique",
      // The parser notices the unclosed list where the file ends.
      "seed.yaml:6:1: YAML syntax: flow sequence in block collection must be sufficiently indented and end with a ]",
    ]);
  });

  it("refuses an alias to an anchor that does not exist", () => {
    const issues = YamlSource.parse("a: *missing\n", "seed.yaml") as LocatedIssue[];
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/missing/);
  });

  it("reads an unreadable file as one issue at its first line", () => {
    const issues = YamlSource.read("/nonexistent/seed.yaml", "seed.yaml") as LocatedIssue[];
    expect(issues.map(formatIssue)).toEqual(["seed.yaml:1:1: cannot read: no such file"]);
  });

  it("gives the plain value of the document", () => {
    expect(parse("servers:\n  a: {status: running, tags: [x]}\n").value).toEqual({
      servers: { a: { status: "running", tags: ["x"] } },
    });
  });
});

describe("YamlSource.locate", () => {
  const source = parse(
    [
      "servers:", //                 1
      "  web-1:", //                 2
      "    status: running", //      3
      "    tags: [a, b]", //         4
      "    size:", //                5
      "  web-2: {status: stopped}", // 6
    ].join("\n"),
  );

  it("points at a value", () => {
    expect(source.locate(["servers", "web-1", "status"])).toEqual({ line: 3, column: 13 });
    expect(source.locate(["servers", "web-1", "tags", 1])).toEqual({ line: 4, column: 15 });
    expect(source.locate(["servers", "web-2", "status"])).toEqual({ line: 6, column: 19 });
  });

  it("points at the key of a field that has no value, and of a key problem", () => {
    expect(source.locate(["servers", "web-1", "size"])).toEqual({ line: 5, column: 5 });
    expect(source.locate(["servers", "web-1"], "key")).toEqual({ line: 2, column: 3 });
  });

  it("points at the entry that lacks a field, and at the deepest entry that exists", () => {
    expect(source.locate(["servers", "web-1", "color"])).toEqual({ line: 2, column: 3 });
    expect(source.locate(["servers", "web-9", "status"])).toEqual({ line: 1, column: 1 });
    expect(source.locate(["servers", "web-1", "tags", 7])).toEqual({ line: 4, column: 5 });
  });
});

describe("YamlSource.validate", () => {
  it("reports every schema problem at once, each located, with what is allowed", () => {
    const source = parse(
      [
        "servers:",
        "  web-1:",
        "    status: runing",
        "    tagz: [a]",
        "    size: big",
        "  web-2:",
        "    tags: [a]",
      ].join("\n"),
    );
    const result = source.validate(Seed, { suggest: true });
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues.map(formatIssue).sort()).toEqual(
      [
        'seed.yaml:3:13: servers.web-1.status: expected "running" or "stopped" (got "runing"); did you mean "running"?',
        'seed.yaml:4:5: servers.web-1.tagz: unknown field "tagz"; did you mean "tags"? (allowed: status, tags, size)',
        'seed.yaml:5:11: servers.web-1.size: expected a number (got "big")',
        'seed.yaml:6:3: servers.web-2.status: is required: "running" or "stopped"',
      ].sort(),
    );
  });

  it("returns the parsed data when the document is valid", () => {
    const result = parse("servers:\n  a: {status: stopped}\n").validate(Seed);
    expect(result).toEqual({ ok: true, data: { servers: { a: { status: "stopped" } } } });
  });
});

describe("YamlSource.validate on unknown fields", () => {
  it("reads the allowed keys through records, lists, optionals and unions", () => {
    const schema = z.strictObject({
      a: z
        .record(
          z.string(),
          z.array(z.union([z.string(), z.strictObject({ x: z.int(), y: z.int() })])),
        )
        .optional(),
    });
    const result = parse("a:\n  k:\n    - text\n    - {x: 1, y: 2, z: 3}\nnope: 1\n").validate(
      schema,
    );
    expect(result.ok).toBe(false);
    expect((result.ok ? [] : result.issues).map(formatIssue).sort()).toEqual([
      'seed.yaml:4:20: a.k[1].z: unknown field "z" (allowed: x, y)',
      'seed.yaml:5:1: nope: unknown field "nope" (allowed: a)',
    ]);
  });
});

describe("YamlSource.read", () => {
  const dir = mkdtempSync(join(tmpdir(), "yaml-document-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the file as the caller did", () => {
    writeFileSync(join(dir, "seed.yaml"), "servers: {}\n");
    const source = YamlSource.read(join(dir, "seed.yaml"), "seed.yaml");
    expect(Array.isArray(source)).toBe(false);
    expect((source as YamlSource).issue(["servers"], "x").file).toBe("seed.yaml");
  });
});

describe("the fast read and the YAML library agree", () => {
  /** The library's reading of `text`, as the slow path (and every locating) reads it. */
  const libraryValue = (text: string): unknown => parseDocument(text, { uniqueKeys: false }).toJS();

  it("on every scalar the core schema resolves, and on those it leaves as text", () => {
    const scalars = [
      "3",
      "-0",
      "+12",
      "0x1f",
      "0o17",
      "017",
      "0b11",
      "1_000",
      "1e3",
      "-.5",
      "1.",
      ".inf",
      "-.Inf",
      ".NaN",
      "~",
      "null",
      "Null",
      "true",
      "True",
      "FALSE",
      "yes",
      "off",
      "12345678901234567890",
      "2024-01-01",
      "'3'",
      '"\\u00e9\\t"',
      "",
      "a b",
      "#112233",
      "x # comment",
    ];
    const text = scalars.map((s, i) => `k${i}: ${s}`).join("\n");
    expect(parse(text).value).toEqual(libraryValue(text));
  });

  it("on block and flow documents of any shape (generated)", () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, flow) => {
        const text = stringify(value, flow ? { collectionStyle: "flow" } : {});
        const read = YamlSource.parse(text, "gen.yaml");
        if (Array.isArray(read)) throw new Error(`refused: ${JSON.stringify(read)}`);
        expect(read.value).toEqual(libraryValue(text));
      }),
      { seed: 26, numRuns: 400 },
    );
  });

  it.each([
    ["a null key, which the library reads as an empty one", "null: 1\nb: 2\n"],
    ["a list as a key", "[a]: 1\n"],
    ["an anchor and its alias", "a: &x {b: 1}\nc: *x\n"],
    ["a tag", "a: !!str 3\n"],
    ["a YAML 1.1 directive", "%YAML 1.1\n---\na: yes\n"],
  ])("on %s (read by the library alone)", (_what, text) => {
    expect(parse(text).value).toEqual(libraryValue(text));
  });

  it("on lone carriage returns, line breaks to both (YAML 1.2 b-break)", () => {
    const cases: [string, unknown][] = [
      ["a: 1\rb: 2\r", { a: 1, b: 2 }],
      ["a: # c\r  b: 1\r", { a: { b: 1 } }],
      ["a: |\r  x\r  y\r", { a: "x\ny\n" }],
      ["a: 1\r\nb: 2\r\n", { a: 1, b: 2 }],
    ];
    for (const [text, value] of cases) {
      expect(parse(text).value).toEqual(value);
      expect(parse(libraryText(text)).value).toEqual(value);
    }
    expect(YamlSource.parse("a: 1\rb: [\r", "x.yaml")).toEqual([
      expect.objectContaining({ line: 3, column: 1 }),
    ]);
  });

  it.each([
    ['a: "x\ny"\n'],
    ["a: 'x\ny'\n"],
    ['- "x\ny"\n'],
    ['a:\n  b: "x\n  y"\n'],
    ['a: "x\\\ny"\n'],
    ['a: {b: "x\ny"}\n'],
  ])("on a quoted scalar whose next line is indented less than YAML allows: %j", (text) => {
    const fast = YamlSource.parse(text, "x.yaml");
    const slow = YamlSource.parse(libraryText(text), "x.yaml");
    expect(Array.isArray(fast)).toBe(true);
    expect(fast).toEqual(slow);
  });

  it("reads quoted scalars that go on to a line indented enough, and quotes in plain text, alike", () => {
    for (const text of [
      'a: "x\n  y"\n',
      "a: 'it''s\n  here'\n",
      "a: it's\nb: say \"hi\n",
      "a: x # it's\nb: 'y' # \"\n",
      'a: "x # y"\nb: "\\"q"\n',
    ]) {
      expect(parse(text).value).toEqual(libraryValue(text));
      expect(parse(text).value).toEqual(parse(libraryText(text)).value);
    }
  });
});

describe("quoteSpansLines", () => {
  const cases: [string, boolean][] = [
    // A quoted scalar left open at a line's end, wherever a node starts.
    ['a: "x\ny"', true],
    ["a: 'x\ny'", true],
    ['"x\ny"', true],
    ['a\n"x\ny"', true],
    ['- "x\ny"', true],
    ['a:\t"x\ny"', true],
    ['a: ["x\n  y"]', true],
    ['a: {"x\ny": 1}', true],
    ['a: [b,"x\ny"]', true],
    ['"k": "x\n  y"', true],
    ['a: # c\nb: "x\ny"', true],
    ['a: # c\n"x\ny"', true],
    // Escapes: `\"` and `''` do not close; a `\` at a line's end is still open.
    ['a: "x\\"y\nz"', true],
    ['a: "x\\\ny"', true],
    ["a: 'it''s\n  more'", true],
    // A `#` inside a plain scalar starts no comment.
    ['a: x# - "y\nb: c', true],
    // Closed on its line.
    ['a: "x"\nb: y', false],
    ["a: 'x'\nb: c", false],
    ["a: 'it''s'\nb: c", false],
    ['a: "\\""\nb: c', false],
    ["a: 'x\\'\nb: c", false],
    ['a: "x""\nb: c', false],
    ['a: "x" "y\nb: c', false],
    // A quote that starts no node is text.
    ["a: it's\nb: c", false],
    ['a: x "y\nb: c', false],
    // Quotes in comments.
    ['a: x # "y\nb: c', false],
    ['a: x # - "y\nb: c', false],
    ['a: x #- "y\nb: c', false],
    ['a: b\t# - "x\nc: d', false],
    ['a: b\n# - "x\nc: d', false],
    ['# - "x\ny', false],
    ["# 'x\nb: c", false],
    ["a: b # c", false],
    ["a: 'x' \nb: c", false],
    ['a: "x"\'y\nb: c', false],
  ];

  // One test for the table: Stryker's per-test coverage loses tests named with quotes and line
  // breaks, so each case is named in its assertion instead.
  it("tells a quoted scalar left open at a line's end from every other quote", () => {
    for (const [text, spans] of cases)
      expect(quoteSpansLines(text), JSON.stringify(text)).toBe(spans);
  });
});
