/**
 * lib/yaml-positions.ts pinned: the exact places the index gives for small texts, and the exact
 * shapes where it gives none (the caller then asks the YAML library, which costs a document
 * build). Each case is a shape a consistency check of the index guards.
 */
import * as jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { type Path, YamlPositions } from "../../src/lib/yaml-positions";

/** js-yaml's core schema (`~` is null), which the project's js-yaml types leave out. */
const CORE_SCHEMA = (jsYaml as unknown as { CORE_SCHEMA: jsYaml.Schema }).CORE_SCHEMA;

function index(text: string): YamlPositions | undefined {
  return YamlPositions.of(text, CORE_SCHEMA, { lookups: 0 });
}

function at(text: string, path: Path, where: "value" | "key" = "value") {
  const positions = index(text);
  if (positions === undefined) throw new Error(`no index for ${JSON.stringify(text)}`);
  return positions.locate(path, where);
}

describe("yaml-positions: shapes the index leaves to the library", () => {
  it.each([
    ["a null key", "~: 1\n"],
    ["a null key after another", "x: 2\n~: 1\n"],
    ["a map as key", "? {a: 1}\n: 2\n"],
    ["a list as key", "? [a]\n: 2\n"],
    ["a key with no value followed by a null key", "a:\n~: x\n"],
    ["a second document whose root is left to the library", "a: 1\n---\n~: 1\n"],
    ["a second document with a shape left to the library", "a: 1\n---\n- [a: 1]\n"],
    ["a second document", "a: 1\n---\nb: 2\n"],
    ["a second document with a null key", "a: 1\n---\nx: 2\n~: 1\n"],
    ["a text of only a comment", "# only a comment\n"],
    ["an empty text", ""],
    ["an empty list item", "l:\n  -\n  - b\n"],
    ["a byte order mark", "\ufeffa: 1\n"],
    ["an explicit tag on an empty value", "a: !!str\nb: 1\n"],
    ["an alias of a map", "a: &x\n  c: 1\nb: *x\n"],
    ["js-yaml's single-pair map in a flow list", "- [a: 1]\n"],
    ["a text js-yaml refuses after its one node", "[a] b\n"],
    ["a quoted scalar followed by more text", '"a" x\n'],
    ["an alias of a map in a list", "- &x {a: 1}\n- *x\n"],
    ["a null key after a key with no value in a flow map", "{a, ~}\n"],
    ["a null key whose value repeats an earlier key, in a flow map", "{a, ~: a}\n"],
  ])("%s: no index", (_name, text) => {
    expect(index(text)).toBeUndefined();
  });
});

describe("yaml-positions: exact places", () => {
  it("a key with nothing after it is located at its key; the next key keeps its own value", () => {
    const text = "a:\nb: 1\n";
    expect(at(text, ["a"])).toEqual({ line: 1, column: 1 });
    expect(at(text, ["b"])).toEqual({ line: 2, column: 4 });
    expect(at(text, ["b"], "key")).toEqual({ line: 2, column: 1 });
    expect(at(text, [])).toEqual({ line: 1, column: 1 });
  });

  it("flow map keys with no value are located at their keys", () => {
    expect(at("{a, b}\n", ["a"])).toEqual({ line: 1, column: 2 });
    expect(at("{a, b}\n", ["b"])).toEqual({ line: 1, column: 5 });
    expect(at("{b: 1, a}\n", ["a"])).toEqual({ line: 1, column: 8 });
    expect(at("{b: 1, a}\n", ["b"])).toEqual({ line: 1, column: 5 });
    expect(at("{a, b: 1}\n", ["b"])).toEqual({ line: 1, column: 8 });
  });

  it("a last key with nothing after it", () => {
    const text = "b: 1\na:\n";
    expect(at(text, ["a"])).toEqual({ line: 2, column: 1 });
    expect(at(text, ["b"])).toEqual({ line: 1, column: 4 });
  });

  it("an explicit null is located at its key", () => {
    const text = "a: ~\nb: 1\n";
    expect(at(text, ["a"])).toEqual({ line: 1, column: 1 });
    expect(at(text, ["b"])).toEqual({ line: 2, column: 4 });
  });

  it("a list item is found by a number only, not by a numeric string", () => {
    const text = "l:\n  - a\n  - b\n";
    expect(at(text, ["l", "0"])).toEqual({ line: 1, column: 1 });
    expect(at(text, ["l", 0])).toEqual({ line: 2, column: 5 });
    expect(at(text, ["l", 1])).toEqual({ line: 3, column: 5 });
    expect(at(text, ["l", 2])).toEqual({ line: 1, column: 1 });
  });

  it("a null list item and a trailing comment", () => {
    expect(at("l:\n  - ~\n  - b\n", ["l", 0])).toEqual({ line: 2, column: 5 });
    expect(at("l: [a, ]\n", ["l", 0])).toEqual({ line: 1, column: 5 });
    expect(at("a: 1 # c\n", ["a"])).toEqual({ line: 1, column: 4 });
    expect(at("a: 1 # c\n", ["a"], "key")).toEqual({ line: 1, column: 1 });
  });

  it("a comment ends at a lone carriage return, as js-yaml reads it, not at the end of the text", () => {
    // Lines are counted at "\n" only, as the library's LineCounter counts them.
    const text = "a: # c\r  b: 1\r";
    expect(at(text, ["a"])).toEqual({ line: 1, column: 10 });
    expect(at(text, ["a", "b"])).toEqual({ line: 1, column: 13 });
    expect(at("a: # c\r\n  b: 1\r\n", ["a"])).toEqual({ line: 2, column: 3 });
  });

  it("a symbol in a path is no key, not even one spelt like it", () => {
    const text = "x: 1\n'Symbol(a)': 2\n";
    expect(at(text, ["Symbol(a)"])).toEqual({ line: 2, column: 14 });
    expect(at(text, [Symbol("a")])).toEqual({ line: 1, column: 1 });
  });

  it("the place defaults to the value's", () => {
    const positions = index("a:\n  b: 1\n");
    expect(positions?.locate(["a", "b"])).toEqual({ line: 2, column: 6 });
    expect(positions?.locate(["a", "b", "c"])).toEqual({ line: 2, column: 3 });
    expect(positions?.locate(["a", "x"])).toEqual({ line: 1, column: 1 });
  });
});

describe("yaml-positions: empty nodes", () => {
  // An anchor never reaches the index through YamlSource (NOT_FAST sends `&` to the library);
  // it is the one way js-yaml closes an empty list item, which the index must not place.
  it("a list item that is only an anchor is left to the library; its neighbours are not", () => {
    const positions = index("- &a\n- b\n");
    expect(positions?.locate([0])).toBeUndefined();
    expect(positions?.locate([0], "key")).toBeUndefined();
    expect(positions?.locate([1])).toEqual({ line: 2, column: 3 });
    expect(index("l:\n  - &x\n  - b\n")?.locate(["l", 0])).toBeUndefined();
    expect(index("l:\n  - &x\n  - b\n")?.locate(["l", 1])).toEqual({ line: 3, column: 5 });
  });

  it("a value on a line of its own is located where its text starts", () => {
    expect(at("a:\n  b\n", ["a"])).toEqual({ line: 2, column: 3 });
    expect(at("a:\n  b\n", ["a"], "key")).toEqual({ line: 1, column: 1 });
    expect(at('a:\n  "b"\n', ["a"])).toEqual({ line: 2, column: 3 });
    expect(at("a:\n  - b\n", ["a"])).toEqual({ line: 2, column: 3 });
    expect(at("a:\n  - b\n", ["a", 0])).toEqual({ line: 2, column: 5 });
  });
});
