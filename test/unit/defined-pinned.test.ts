/*
 * The one "drop undefined keys" (src/lib/defined.ts), pinned (issue 27: mutation testing): only
 * `undefined` goes; `null`, `0`, `false` and `""` are values a caller meant.
 */
import { describe, expect, it } from "vitest";
import { definedOnly } from "../../src/lib/defined";

describe("definedOnly", () => {
  it("drops the keys spelt undefined and keeps every other value, in order", () => {
    const out = definedOnly({ a: 1, b: undefined, c: null, d: 0, e: false, f: "", g: undefined });
    expect(out).toStrictEqual({ a: 1, c: null, d: 0, e: false, f: "" });
    expect(Object.keys(out)).toEqual(["a", "c", "d", "e", "f"]);
  });

  it("gives a new object, leaving the caller's alone", () => {
    const given = { a: undefined, b: 2 };
    expect(definedOnly(given)).not.toBe(given);
    expect(Object.keys(given)).toEqual(["a", "b"]);
  });
});
