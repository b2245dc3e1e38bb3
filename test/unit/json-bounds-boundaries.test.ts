/*
 * The one bound on JSON nesting and the one walk over a parsed JSON value (src/lib/json-bounds.ts),
 * at their boundaries (issue 27: mutation testing): the depth that is allowed and the one that is
 * not, the offset a refusal names, brackets inside strings and after escaped quotes, and the
 * order and paths the walk reports.
 */
import { describe, expect, it } from "vitest";
import {
  forEachJsonValue,
  type JsonPathStep,
  jsonTooDeep,
  MAX_JSON_DEPTH,
} from "../../src/lib/json-bounds";

describe("jsonTooDeep", () => {
  it("allows exactly the limit and names the bracket one past it", () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(jsonTooDeep(`${"[".repeat(64)}${"]".repeat(64)}`)).toBeUndefined();
    expect(jsonTooDeep(`${"[".repeat(65)}${"]".repeat(65)}`)).toEqual({ limit: 64, offset: 64 });
    expect(jsonTooDeep('{"a":{"b":[1]}}', 2)).toEqual({ limit: 2, offset: 10 });
    expect(jsonTooDeep('{"a":{"b":[1]}}', 3)).toBeUndefined();
  });

  it("counts a closed bracket out again, so siblings never add up", () => {
    expect(jsonTooDeep("[[],[],[]]", 2)).toBeUndefined();
    expect(jsonTooDeep('[{},{"a":{}}]', 2)).toEqual({ limit: 2, offset: 9 });
  });

  it("ignores brackets inside strings, also after an escaped quote or backslash", () => {
    expect(jsonTooDeep('["[[[", "{{{"]', 1)).toBeUndefined();
    expect(jsonTooDeep('["\\"[[[", 1]', 1)).toBeUndefined();
    expect(jsonTooDeep('["\\\\", [1]]', 1)).toEqual({ limit: 1, offset: 7 });
  });

  it("checks text that is not valid JSON too, and an empty text", () => {
    expect(jsonTooDeep("[[[", 2)).toEqual({ limit: 2, offset: 2 });
    expect(jsonTooDeep("", 0)).toBeUndefined();
    expect(jsonTooDeep("1", 0)).toBeUndefined();
    expect(jsonTooDeep("{", 0)).toEqual({ limit: 0, offset: 0 });
  });
});

describe("forEachJsonValue", () => {
  /** Every visit as `path key=value`, in the order made. */
  function visits(root: unknown): { seen: string[]; count: number } {
    const seen: string[] = [];
    const count = forEachJsonValue(root, (value, path, key) => {
      const at = path()
        .map((s: JsonPathStep) => String(s))
        .join("/");
      seen.push(
        `${at === "" ? "$" : at}${key === undefined ? "" : ` key ${key}`} = ${JSON.stringify(value)}`,
      );
    });
    return { seen, count };
  }

  it("visits every value and every key in document order, with its path", () => {
    expect(visits({ a: [1, { b: null }], c: "x" })).toEqual({
      seen: [
        '$ = {"a":[1,{"b":null}],"c":"x"}',
        '$ key a = [1,{"b":null}]',
        '$ key c = "x"',
        'a = [1,{"b":null}]',
        "a/0 = 1",
        'a/1 = {"b":null}',
        "a/1 key b = null",
        "a/1/b = null",
        'c = "x"',
      ],
      count: 6,
    });
  });

  it("visits a scalar root once and walks 10,000 levels without a stack overflow", () => {
    expect(visits(5)).toEqual({ seen: ["$ = 5"], count: 1 });
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(forEachJsonValue(deep, () => {})).toBe(10_001);
  });
});
