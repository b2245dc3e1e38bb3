/**
 * The YAML reader's exact words and places (src/lib/yaml-document.ts), and which of its two reads
 * a text takes: the fast one (js-yaml, then the YAML library only to locate a problem) or the
 * library alone, counted by `work.nodes` (the fast read counts values and keys, the library's
 * duplicate-key pass counts nodes and pairs).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  byPosition,
  describe as describeValue,
  formatIssue,
  type LocatedIssue,
  mapAt,
  valueAt,
  YamlSource,
} from "../../src/lib/yaml-document";
import { tempDir } from "../support/temp-dir";
import { parse } from "../support/yaml-source";

function refused(text: string): string[] {
  const issues = YamlSource.parse(text, "seed.yaml");
  if (!Array.isArray(issues)) throw new Error(`accepted ${JSON.stringify(text)}`);
  return issues.map(formatIssue);
}

/** The issues of validating `text` against `schema`, formatted, in file order. */
function problems(text: string, schema: z.ZodType, suggest = false): string[] {
  const result = parse(text).validate(schema, { suggest });
  if (result.ok) throw new Error(`valid: ${JSON.stringify(text)}`);
  return result.issues.map(formatIssue);
}

describe("which read a text takes", () => {
  it("reads plain block and flow YAML the fast way, counting values and keys", () => {
    // {a: 1}: the map, its key, its value.
    expect(parse("a: 1\n").work).toEqual({ nodes: 3, lookups: 0 });
    // The list, its two items, the map in it and its key.
    expect(parse("- 1\n- {b: 2}\n").work.nodes).toBe(5);
    expect(parse("xnull: 1\nnullx: 2\nnul: 3\n~x: 4\n").work.nodes).toBe(9);
  });

  it("reads with the library alone a text js-yaml would read otherwise, counting its nodes", () => {
    // The library's count: the map, its pair, the pair's key (a list or a map is more nodes),
    // its value; the fast read of `a: 1` counts 3.
    for (const [text, nodes] of [
      ["a: &x 1\n", 4],
      ["a: !!str 1\n", 4],
      ["? a\n: 1\n", 4],
      ["%YAML 1.2\n---\na: 1\n", 4],
      ["[a]: 1\n", 5],
      ["[a] : 1\n", 5],
      ["[a]\t: 1\n", 5],
      ["{a: 1}: 2\n", 7],
    ] as const) {
      expect(parse(text).work.nodes, text).toBe(nodes);
    }
    // A comment between a closing bracket and a colon is not a key: the fast read's 6, not 8.
    expect(parse("a: 1\nb: [x]  # : no key\n").work.nodes).toBe(6);
    // A directive starts a line; a % inside a value is text.
    expect(parse("a: 50%\n").work.nodes).toBe(3);
  });

  it("reads every spelling of a null key with the library, which makes it an empty key", () => {
    for (const key of ["~", "null", "Null", "NULL"]) {
      const source = parse(`${key}: 1\n`);
      expect(source.value, key).toEqual({ "": 1 });
      expect(source.work.nodes, key).toBe(4);
    }
    expect(parse("a:\n  null: 1\n").value).toEqual({ a: { "": 1 } });
    expect(parse("- null: 1\n").value).toEqual([{ "": 1 }]);
    expect(parse("nULL: 1\n").value).toEqual({ nULL: 1 });
  });

  it("reads an empty text as nothing", () => {
    expect(parse("").value).toBe(null);
    expect(parse("# only a comment\n").value).toBe(null);
  });
});

describe("YamlSource.parse's refusals", () => {
  it("names each repeated key of every map, nested ones too, where it is repeated", () => {
    expect(
      refused(
        "a: 1\nb:\n  c: 1\n  c: 2\nl:\n  - {d: 1, d: 2}\n  - x\n  - [e, {f: 1, f: 2}]\na: 3\n",
      ),
    ).toEqual([
      "seed.yaml:4:3: YAML syntax: map keys must be unique",
      "seed.yaml:6:12: YAML syntax: map keys must be unique",
      "seed.yaml:8:16: YAML syntax: map keys must be unique",
      "seed.yaml:9:1: YAML syntax: map keys must be unique",
    ]);
  });

  it("takes lists used as keys for different keys", () => {
    expect(parse("[a]: 1\n[b]: 2\n").value).toEqual({ "[ a ]": 1, "[ b ]": 2 });
  });

  it("compares keys by value, as the library does", () => {
    expect(refused("1: a\n0x1: b\n")).toEqual([
      "seed.yaml:2:1: YAML syntax: map keys must be unique",
    ]);
    // A number and a text are two keys to the library, one to js-yaml.
    expect(parse('1: a\n"1": b\n').value).toEqual({ "1": "b" });
  });

  it("stops an alias bomb with the library's words", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
    ].join("\n");
    expect(refused(bomb)).toEqual([
      "seed.yaml:1:1: YAML: excessive alias count indicates a resource exhaustion attack",
    ]);
  });
});

describe("YamlSource.read of a file that is not UTF-8", () => {
  const dir = tempDir("yaml-document-pinned-");

  it("puts the issue at the byte that is not UTF-8, in the caller's name", () => {
    const file = join(dir, "latin1.yaml");
    writeFileSync(file, Buffer.from("a: 1\nname: caf\xe9\n", "latin1"));
    expect((YamlSource.read(file, "seed.yaml") as LocatedIssue[]).map(formatIssue)).toEqual([
      "seed.yaml:2:10: not UTF-8 at 2:10 (byte 0xe9; Latin-1 or another 8-bit encoding?); save it as UTF-8",
    ]);
  });

  it("names the file by its path when the caller gives no other name", () => {
    const file = join(dir, "dir.yaml");
    writeFileSync(file, "a: [1\n");
    expect((YamlSource.read(file) as LocatedIssue[]).map(formatIssue)).toEqual([
      `${file}:2:1: YAML syntax: flow sequence in block collection must be sufficiently indented and end with a ]`,
    ]);
  });
});

describe("YamlSource.locate", () => {
  const text = [
    "servers:", //            1
    "  web:", //              2
    "    tags: [a, ~]", //    3
    "    plan: ~", //         4
    "  db: null", //          5
    "list:", //               6
    "  - x: 1", //            7
    "  -", //                 8
    "scalar: 3", //           9
  ].join("\n");

  it.each([
    ["the first of keys equal as text", ['1: a\n"1": b\n', ["1"]], { line: 1, column: 4 }],
    [
      "a null item of a list, at itself",
      [text, ["servers", "web", "tags", 1]],
      { line: 3, column: 15 },
    ],
    [
      "a key after a list used as a key",
      ["[a]: 1\nundefined: 2\n", ["undefined"]],
      { line: 2, column: 12 },
    ],
    ["a field written ~, at its key", [text, ["servers", "web", "plan"]], { line: 4, column: 5 }],
    ["an entry written null, at its key", [text, ["servers", "db"]], { line: 5, column: 3 }],
    [
      "a field of a null entry, at the entry",
      [text, ["servers", "db", "plan"]],
      { line: 5, column: 3 },
    ],
    [
      "a field of an empty list item, at the item",
      [text, ["list", 1, "x"]],
      { line: 8, column: 4 },
    ],
    ["an item of a list that is not there", [text, ["list", 5]], { line: 6, column: 1 }],
    ["a list read as a map", [text, ["list", "x"]], { line: 6, column: 1 }],
    ["a field of a scalar, at the scalar's key", [text, ["scalar", "x"]], { line: 9, column: 1 }],
    ["a symbol, at the map's key", [text, ["servers", Symbol("x")]], { line: 1, column: 1 }],
    ["the whole document", [text, []], { line: 1, column: 1 }],
    ["an item of a list", [text, ["list", 0, "x"]], { line: 7, column: 8 }],
  ] as const)("points at %s", (_what, [source, path], where) => {
    expect(parse(source).locate(path)).toEqual(where);
  });

  it("finds no entry for a symbol, even one whose text is a key", () => {
    expect(parse("s:\n  Symbol(x): 1\n").locate(["s", Symbol("x")])).toEqual({
      line: 1,
      column: 1,
    });
  });

  it("points at a scalar or an empty value for an item of it", () => {
    expect(parse("a: 1\nscalar: 3\n").locate(["scalar", 0])).toEqual({ line: 2, column: 1 });
    expect(parse("a: 1\nn: ~\n").locate(["n", 0])).toEqual({ line: 2, column: 1 });
  });

  it("points at the key of a value when asked for the key", () => {
    const source = parse(text);
    expect(source.locate(["servers", "web", "tags"], "key")).toEqual({ line: 3, column: 5 });
    expect(source.locate(["list", 0, "x"], "key")).toEqual({ line: 7, column: 5 });
    expect(source.locate(["list", 0], "key")).toEqual({ line: 7, column: 5 });
  });

  it("indexes each map once and looks each segment up once", () => {
    const source = parse("a: 1\nb: 2\nc: {d: 1}\n");
    expect(source.work.lookups).toBe(0);
    source.locate(["c", "d"]);
    // The root's 3 entries and the inner map's 1, indexed; two lookups.
    expect(source.work.lookups).toBe(6);
    source.locate(["a"]);
    expect(source.work.lookups).toBe(7);
  });

  it("locates in an empty document at its start", () => {
    expect(parse("").locate(["a", 0])).toEqual({ line: 1, column: 1 });
  });
});

describe("YamlSource.issue", () => {
  it("carries the file, the place, the formatted path and the message", () => {
    expect(parse("a:\n  - b: 1\n").issue(["a", 0, "b"], "too big")).toEqual({
      file: "seed.yaml",
      line: 2,
      column: 8,
      path: "a[0].b",
      message: "too big",
    });
    expect(parse("a:\n  - b: 1\n").issue(["a", 0, "b"], "bad key", "key")).toEqual({
      file: "seed.yaml",
      line: 2,
      column: 5,
      path: "a[0].b",
      message: "bad key",
    });
  });
});

describe("YamlSource.validate's words", () => {
  it("names each expected type in plain words, with what was given", () => {
    const schema = z.strictObject({
      m: z.strictObject({}).optional(),
      l: z.array(z.string()).optional(),
      s: z.string().optional(),
      n: z.number().optional(),
      i: z.int().optional(),
      b: z.boolean().optional(),
      big: z.bigint().optional(),
    });
    const text = "m: 1\nl: 2\ns: [3]\nn: {x: 1}\ni: 1.5\nb: yes\nbig: ~\n";
    expect(problems(text, schema)).toEqual([
      "seed.yaml:1:4: m: expected a map (got 1)",
      "seed.yaml:2:4: l: expected a list (got 2)",
      "seed.yaml:3:4: s: expected text (got a list)",
      "seed.yaml:4:4: n: expected a number (got a map)",
      "seed.yaml:5:4: i: expected a whole number (got 1.5)",
      'seed.yaml:6:4: b: expected true or false (got "yes")',
      "seed.yaml:7:1: big: expected bigint (got nothing (null))",
    ]);
  });

  it("says a missing value is required, with the allowed values when there is a list of them", () => {
    const schema = z.strictObject({ a: z.object({ s: z.string(), e: z.enum(["x", "y", "z"]) }) });
    expect(problems("a: {}\n", schema)).toEqual([
      "seed.yaml:1:1: a.s: is required",
      'seed.yaml:1:1: a.e: is required: "x" or "y" or "z"',
    ]);
  });

  it("suggests the nearest allowed value only when asked", () => {
    const schema = z.strictObject({ e: z.enum(["running", "stopped"]), n: z.literal(3) });
    expect(problems("e: runing\nn: 4\n", schema)).toEqual([
      'seed.yaml:1:4: e: expected "running" or "stopped" (got "runing")',
      "seed.yaml:2:4: n: expected 3 (got 4)",
    ]);
    expect(problems("e: runing\nn: 4\n", schema, true)).toEqual([
      'seed.yaml:1:4: e: expected "running" or "stopped" (got "runing"); did you mean "running"?',
      "seed.yaml:2:4: n: expected 3 (got 4)",
    ]);
  });

  it("adds what was given to a schema's own message, unless it is a rule of its own or says it", () => {
    const schema = z.strictObject({
      a: z.string().min(3, "must be 3 or more characters").optional(),
      b: z.string().min(3, "is short (got a short one)").optional(),
      c: z
        .string()
        .refine((v) => v === "ok", "must be ok")
        .optional(),
    });
    expect(problems("a: x\nb: y\nc: z\n", schema)).toEqual([
      'seed.yaml:1:4: a: must be 3 or more characters (got "x")',
      "seed.yaml:2:4: b: is short (got a short one)",
      "seed.yaml:3:4: c: must be ok",
    ]);
  });

  it("lists the allowed keys of an unknown field, suggesting one only when asked", () => {
    const schema = z.strictObject({ status: z.string(), size: z.number() });
    expect(problems("status: a\nsize: 1\nstatuz: b\n", schema)).toEqual([
      'seed.yaml:3:1: statuz: unknown field "statuz" (allowed: status, size)',
    ]);
    expect(problems("status: a\nsize: 1\nstatuz: b\n", schema, true)).toEqual([
      'seed.yaml:3:1: statuz: unknown field "statuz"; did you mean "status"? (allowed: status, size)',
    ]);
  });

  it("reads the allowed keys through every wrapper a schema puts around a map", () => {
    const inner = z.strictObject({ x: z.int() });
    const wrapped = {
      nullable: inner.nullable(),
      default: inner.default({ x: 1 }),
      prefault: inner.prefault({ x: 1 }),
      readonly: inner.readonly(),
      nonoptional: inner.optional().nonoptional(),
      pipe: inner.transform((v) => v.x),
    };
    for (const [name, schema] of Object.entries(wrapped)) {
      expect(problems(`v: {x: 1, y: 2}\n`, z.strictObject({ v: schema })), name).toEqual([
        'seed.yaml:1:11: v.y: unknown field "y" (allowed: x)',
      ]);
    }
  });

  it("reads the allowed keys of the option of a union that has the field", () => {
    const union = z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("a"), a: z.strictObject({ x: z.int() }) }),
      z.strictObject({ kind: z.literal("b"), b: z.strictObject({ y: z.int() }) }),
    ]);
    expect(problems("v: {kind: a, a: {x: 1, z: 2}}\n", z.strictObject({ v: union }))).toEqual([
      'seed.yaml:1:24: v.a.z: unknown field "z" (allowed: x)',
    ]);
  });

  it("lists no allowed keys for a key a record of named keys does not have", () => {
    const schema = z.strictObject({ v: z.record(z.enum(["a"]), z.strictObject({ x: z.int() })) });
    expect(problems("v: {a: {x: 1}, b: {x: 1}}\n", schema)).toEqual([
      'seed.yaml:1:16: v.b: unknown field "b"',
    ]);
  });

  it("lists no allowed keys where the schema does not say them", () => {
    const lazy: z.ZodType = z.lazy(() => z.strictObject({ x: z.int() }));
    expect(problems("v: {x: 1, y: 2}\n", z.strictObject({ v: lazy }))).toEqual([
      'seed.yaml:1:11: v.y: unknown field "y"',
    ]);
  });

  it("finds the keys allowed in a nested map, a record's entry and a list's item", () => {
    const schema = z.strictObject({
      o: z.strictObject({ p: z.strictObject({ q: z.int() }) }).optional(),
      r: z.record(z.string(), z.strictObject({ s: z.int() })).optional(),
      l: z.array(z.strictObject({ t: z.int() })).optional(),
    });
    expect(
      problems("o: {p: {q: 1, u: 1}}\nr: {k: {s: 1, u: 1}}\nl: [{t: 1, u: 1}]\n", schema),
    ).toEqual([
      'seed.yaml:1:15: o.p.u: unknown field "u" (allowed: q)',
      'seed.yaml:2:15: r.k.u: unknown field "u" (allowed: s)',
      'seed.yaml:3:12: l[0].u: unknown field "u" (allowed: t)',
    ]);
  });
});

describe("describe", () => {
  it("shows a value as a message does, cutting long text to 60 characters", () => {
    expect(describeValue(null)).toBe("nothing (null)");
    expect(describeValue([1])).toBe("a list");
    expect(describeValue({ a: 1 })).toBe("a map");
    expect(describeValue(3)).toBe("3");
    expect(describeValue(false)).toBe("false");
    expect(describeValue(undefined)).toBe("undefined");
    expect(describeValue("a\tb")).toBe('"a\\tb"');
    expect(describeValue("x".repeat(60))).toBe(JSON.stringify("x".repeat(60)));
    expect(describeValue(`${"x".repeat(57)}yzzz`)).toBe(`"${"x".repeat(57)}..."`);
  });
});

describe("valueAt and mapAt", () => {
  const doc = { a: { b: [1, { c: null }] }, s: "text" };

  it("walk a plain document, giving undefined where the path leaves it", () => {
    expect(valueAt(doc, ["a", "b", 1, "c"])).toBe(null);
    expect(valueAt(doc, ["a", "b", 0])).toBe(1);
    expect(valueAt(doc, ["a", "b", 1, "c", "d"])).toBe(undefined);
    expect(valueAt(doc, ["s", "length"])).toBe(undefined);
    expect(valueAt(doc, [])).toBe(doc);
  });

  it("give a map only where there is one", () => {
    expect(mapAt(doc, ["a"])).toBe(doc.a);
    expect(mapAt(doc, ["a", "b"])).toBe(undefined);
    expect(mapAt(doc, ["a", "b", 1, "c"])).toBe(undefined);
    expect(mapAt(doc, ["s"])).toBe(undefined);
    expect(mapAt(doc, ["z"])).toBe(undefined);
  });
});

describe("byPosition", () => {
  const at = (file: string, line: number, column: number): LocatedIssue => ({
    file,
    line,
    column,
    path: "",
    message: "",
  });

  it("orders issues by file, then line, then column", () => {
    const issues = [at("b.yaml", 1, 1), at("a.yaml", 2, 1), at("a.yaml", 1, 9), at("a.yaml", 1, 2)];
    expect(issues.sort(byPosition)).toEqual([
      at("a.yaml", 1, 2),
      at("a.yaml", 1, 9),
      at("a.yaml", 2, 1),
      at("b.yaml", 1, 1),
    ]);
    expect(byPosition(at("a.yaml", 3, 4), at("a.yaml", 3, 4))).toBe(0);
    expect(byPosition(at("a.yaml", 3, 4), at("a.yaml", 1, 9))).toBe(2);
    expect(byPosition(at("a.yaml", 3, 4), at("a.yaml", 3, 1))).toBe(3);
  });
});
