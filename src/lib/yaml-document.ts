/**
 * YAML files that people write by hand, checked with a zod schema, with every problem reported at
 * once and pointed at: file, line, column, the path of the value (`servers.web-1.plan`) and what
 * is allowed there. Generic: it knows nothing of what the file describes (the GitOps manifest and
 * the emulator's seed file both read their YAML through it).
 *
 * The rule: a problem is located at the value it is about; a missing value at the key of the map
 * that lacks it; an unknown key at that key. Syntax errors stop there (a schema check of a broken
 * document only adds noise), everything else is collected.
 */
/// <reference path="../types/js-yaml.d.ts" />
import { FAILSAFE_SCHEMA, load, Type } from "js-yaml";
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  Schema,
  type YAMLMap,
} from "yaml";
import type { z } from "zod";
import { formatPath } from "../api/schemas/common";
import { messageOf } from "./message";
import { didYouMean } from "./names";
import { readTextFile } from "./text-file";
import { YamlPositions } from "./yaml-positions";

/** The largest YAML file read (a manifest, a seed file): 8 MiB, some 200,000 short entries. */
export const YAML_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** One problem of a YAML file, where it is and what is wrong. */
export interface LocatedIssue {
  /** The file as the caller named it. */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Where in the document: `servers.web-1.plan`, `securityGroups.web.rules[0].dport`; `""` for the whole file. */
  path: string;
  /** What is wrong and what is allowed. */
  message: string;
}

export type Path = readonly PropertyKey[];

/** The YAML library's document of a text: its nodes, with their offsets, and its lines. */
interface Located {
  root: Node | null;
  lines: LineCounter;
}

/** A parsed YAML file: its plain value, and where each of its values stands. */
export class YamlSource {
  /** The entries of each map located in, by key: made on first use, so locating is linear. */
  private readonly keyIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
  /** A fast-read text's places (yaml-positions.ts), on first use; null where only the library knows. */
  private positions: YamlPositions | null | undefined;

  private constructor(
    /** The file as the caller named it, for messages. */
    readonly file: string,
    /** The document as plain data (maps as objects, sequences as arrays). */
    readonly value: unknown,
    /** The document's nodes; for a text read by {@link fastValue}, the text, parsed when first located in. */
    private located: Located | string,
    /**
     * What checking this document cost so far, counted for the tests and the benchmark that hold
     * it linear: nodes the duplicate-key pass (or the fast read's key check) visited, map entries
     * indexed or looked up to locate.
     */
    readonly work: { nodes: number; lookups: number },
  ) {}

  /** The document's nodes and lines, parsed on first use when the text was read the fast way. */
  private nodes(): Located {
    if (typeof this.located === "string") {
      const lines = new LineCounter();
      const doc = parseDocument(this.located, { lineCounter: lines, uniqueKeys: false });
      this.located = { root: doc.contents, lines };
    }
    return this.located;
  }

  /** The entry of `map` whose key is `key` (a scalar's text), through the map's index. */
  private entryOf(map: YAMLMap, key: PropertyKey): Pair | undefined {
    let index = this.keyIndex.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items) {
        this.work.lookups++;
        // The first of equal keys, as a search from the start finds it.
        if (isScalar(pair.key) && !index.has(String(pair.key.value))) {
          index.set(String(pair.key.value), pair);
        }
      }
      this.keyIndex.set(map, index);
    }
    this.work.lookups++;
    return index.get(String(key));
  }

  /**
   * Parses `text`. Fails with every syntax problem (bad indentation, duplicate keys, unresolved
   * aliases, several documents in one file), each located.
   */
  static parse(source: string, file: string): YamlSource | LocatedIssue[] {
    // A lone carriage return is a line break in YAML 1.2 (`b-break`), as js-yaml reads it; the
    // library does not, so each is read as the line feed it means (offsets do not move).
    const text = source.replace(LONE_CR, "\n");
    const work = { nodes: 0, lookups: 0 };
    const fast = fastValue(text, work);
    if (fast !== undefined) return new YamlSource(file, fast.value, text, work);
    work.nodes = 0;
    const lines = new LineCounter();
    // The library's own duplicate-key check compares each key with every earlier one of its
    // map (quadratic: 27 s for a map of 40,000 entries); duplicateKeys() does it in one pass.
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
    const at = (offset: number, message: string): LocatedIssue => {
      const { line, col } = lines.linePos(offset);
      return { file, line, column: col, path: "", message };
    };
    const syntax = [
      ...doc.errors.map((e) => ({ offset: e.pos[0], message: e.message })),
      ...duplicateKeys(doc.contents, work).map((offset) => ({
        offset,
        message: "Map keys must be unique",
      })),
    ].sort((a, b) => a.offset - b.offset);
    if (syntax.length > 0) {
      return syntax.map((e) => at(e.offset, `YAML syntax: ${lowerFirst(e.message)}`));
    }
    let value: unknown;
    try {
      // The default alias limit stands: a file of nested aliases must not expand without end.
      value = doc.toJS();
    } catch (err) {
      return [at(0, `YAML: ${lowerFirst(messageOf(err))}`)];
    }
    return new YamlSource(file, value, { root: doc.contents, lines }, work);
  }

  /**
   * Reads and parses a file of at most {@link YAML_FILE_MAX_BYTES} (lib/text-file.ts: a regular
   * file, UTF-8); a file that cannot be read is one issue, at the place that is not UTF-8 or at
   * its first line.
   */
  static read(file: string, displayName: string = file): YamlSource | LocatedIssue[] {
    const read = readTextFile(file, YAML_FILE_MAX_BYTES);
    if (!read.ok) {
      const { line = 1, column = 1 } = read;
      const message = read.line === undefined ? `cannot read: ${read.message}` : read.message;
      return [{ file: displayName, line, column, path: "", message }];
    }
    return YamlSource.parse(read.text, displayName);
  }

  /**
   * Where the value at `path` stands (`at: "key"`: where its key stands, for problems with the
   * key itself). A path that does not exist all the way is located at the key of the deepest
   * entry that does: a missing field is reported at the entry that lacks it.
   */
  locate(path: Path, at: "value" | "key" = "value"): { line: number; column: number } {
    if (typeof this.located === "string") {
      this.positions ??= YamlPositions.of(this.located, CORE_SCALARS, this.work) ?? null;
      const found = this.positions?.locate(path, at);
      if (found !== undefined) return found;
    }
    const { root, lines } = this.nodes();
    let node: Node | null = root;
    let keyOffset = node?.range?.[0] ?? 0;
    let valueOffset: number | undefined = keyOffset;
    for (const segment of path) {
      let next: Node | null | undefined;
      if (isMap(node)) {
        const pair = typeof segment === "symbol" ? undefined : this.entryOf(node, segment);
        if (pair !== undefined) keyOffset = (pair.key as Node).range?.[0] ?? keyOffset;
        next = pair === undefined ? undefined : (pair.value as Node | null);
        if (pair === undefined) valueOffset = undefined;
      } else if (isSeq(node) && typeof segment === "number") {
        next = node.items[segment] as Node | null | undefined;
        if (next != null) keyOffset = next.range?.[0] ?? keyOffset;
        else valueOffset = undefined;
      } else {
        valueOffset = undefined;
      }
      if (valueOffset === undefined) break;
      node = next ?? null;
      // `plan:` with nothing after it has no place of its own: its key is where the reader looks.
      const empty = node === null || (isScalar(node) && node.value === null);
      valueOffset = empty ? keyOffset : (node?.range?.[0] ?? keyOffset);
    }
    const offset = at === "key" || valueOffset === undefined ? keyOffset : valueOffset;
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  }

  /** A problem at `path`, located (at its key with `at: "key"`). */
  issue(path: Path, message: string, at: "value" | "key" = "value"): LocatedIssue {
    return { file: this.file, ...this.locate(path, at), path: formatPath(path), message };
  }

  /**
   * Checks the document against `schema`. On failure every zod issue becomes one located issue
   * (unknown keys one each, with the allowed keys; with `suggest`, the nearest of them too).
   */
  validate<S extends z.ZodType>(
    schema: S,
    options: { suggest?: boolean } = {},
  ): { ok: true; data: z.output<S> } | { ok: false; issues: LocatedIssue[] } {
    const result = schema.safeParse(this.value, { error: plainWords });
    if (result.success) return { ok: true, data: result.data };
    return {
      ok: false,
      issues: this.fromZod(result.error.issues, schema, options.suggest === true),
    };
  }

  private fromZod(
    issues: readonly z.core.$ZodIssue[],
    schema: z.ZodType,
    suggest: boolean,
  ): LocatedIssue[] {
    const out: LocatedIssue[] = [];
    for (const issue of issues) {
      if (issue.code === "unrecognized_keys") {
        const allowed = keysAt(schema, issue.path);
        for (const key of issue.keys) {
          const message = unknownKeyMessage(key, allowed, suggest);
          out.push(this.issue([...issue.path, key], message, "key"));
        }
        continue;
      }
      let message = issue.message;
      const input = valueAt(this.value, issue.path);
      // What was given helps with a wrong value; a rule about a whole entry says it itself.
      if (input !== undefined && issue.code !== "custom" && !message.includes("got ")) {
        message += ` (got ${describe(input)})`;
      }
      if (issue.code === "invalid_value" && typeof input === "string" && suggest) {
        message += didYouMean(input, issue.values.map(String));
      }
      out.push(this.issue(issue.path, message));
    }
    return out;
  }
}

/**
 * The YAML library's core schema (YAML 1.2: `true`, `0x1f`, `1e3`, `~`), each of its scalar rules
 * as a js-yaml type, in its order: a plain scalar gets the value the library would give it. (Each
 * type has a name of its own: js-yaml keeps one type per name, and the text never names one.)
 */
const CORE_SCALARS = FAILSAFE_SCHEMA.extend({
  implicit: new Schema({ schema: "core" }).tags.flatMap((tag, index) => {
    const { test, resolve } = tag;
    if (test === undefined || tag.collection !== undefined) return [];
    return [
      new Type(`${tag.tag}#${index}`, {
        kind: "scalar",
        resolve: (data) => test.test(data),
        construct: (data) => {
          const value = resolve(data, () => {}, { intAsBigInt: false });
          return isScalar(value) ? value.value : value;
        },
      }),
    ];
  }),
});

/**
 * Text that js-yaml could read otherwise than the YAML library: anchors and aliases (which the
 * library expands under a limit), tags, explicit `?` keys, directives, and a flow collection as a
 * key (`[a]: 1`, which js-yaml turns into `a`). Such a text is read by the library alone.
 */
const NOT_FAST = /[&!?]|^%|[\]}][ \t]*:/m;

/** A carriage return that does not start a CRLF. */
const LONE_CR = /\r(?!\n)/g;

/**
 * Whether a quoted scalar is left open at the end of a line (goes on to the next one). js-yaml
 * reads such a scalar even when its next line is indented less than YAML allows (`a: "x\ny"`),
 * which the library refuses; so a text with one is read by the library alone. A quote opens a
 * scalar only where a node starts: at a line's first character, after `- `, `: `, `[`, `{` or
 * `,` (a text with `?` never comes here: {@link NOT_FAST}). One pass over the text.
 */
export function quoteSpansLines(text: string): boolean {
  let quote = 0;
  let nodeStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      if (quote !== 0) return true;
      nodeStart = true;
    } else if (quote !== 0) {
      // An escape skips the next character, but not a line break (`"a\` then a new line);
      // `''` in a single-quoted scalar is one quote.
      const next = text.charCodeAt(i + 1);
      if (c === BACKSLASH && quote === DQ) {
        if (next !== LF) i++;
      } else if (c === quote) {
        if (c === SQ && next === SQ) i++;
        else quote = 0;
      }
    } else if (c === HASH && (i === 0 || isBlank(text.charCodeAt(i - 1)))) {
      const end = text.indexOf("\n", i);
      if (end === -1) break;
      i = end - 1;
    } else if (c === DQ || c === SQ) {
      if (nodeStart) quote = c;
      nodeStart = false;
    } else if (c === 0x5b || c === 0x7b || c === 0x2c) {
      nodeStart = true; // [ { ,
    } else if ((c === 0x2d || c === 0x3a) && isBlank(text.charCodeAt(i + 1))) {
      nodeStart = true; // "- ", ": "
    } else if (!isBlank(c)) {
      nodeStart = false;
    }
  }
  return false;
}

const [LF, TAB, SPACE, DQ, SQ, HASH, BACKSLASH] = [10, 9, 32, 34, 39, 35, 92];

/** A space, a tab or a line feed (a carriage return is always followed by one here). */
function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === LF;
}

/** A key that is null to the YAML library (`~:`, `null:`), whose plain key is `""`, not `"null"`. */
const NULL_KEY = /^(?:~|[Nn]ull|NULL)$/;

/**
 * The value of `text` read by js-yaml, some ten times faster than the YAML library's document
 * (which then is parsed only to locate a problem), or `undefined` for a text that needs the
 * library: one with a syntax error or a duplicate key (the library words them, located), one
 * {@link NOT_FAST} names, or one with a null key. The key check is one pass over the value; its
 * nodes are counted in `work.nodes`.
 */
function fastValue(text: string, work: { nodes: number }): { value: unknown } | undefined {
  if (NOT_FAST.test(text) || quoteSpansLines(text)) return undefined;
  let value: unknown;
  try {
    value = load(text, { schema: CORE_SCALARS }) ?? null;
  } catch {
    return undefined;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    work.nodes++;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (node !== null && typeof node === "object") {
      for (const [key, item] of Object.entries(node)) {
        work.nodes++;
        if (NULL_KEY.test(key)) return undefined;
        stack.push(item);
      }
    }
  }
  return { value };
}

/**
 * Offsets of the keys that repeat an earlier key of their map (scalars equal in value, as the
 * library compares them), in one pass over the document with a set per map; aliases are not
 * followed. `work.nodes` counts the nodes visited.
 */
function duplicateKeys(root: Node | null, work: { nodes: number }): number[] {
  const out: number[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    work.nodes++;
    if (isPair(node)) {
      stack.push(node.key, node.value);
    } else if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          if (seen.has(pair.key.value)) out.push(pair.key.range?.[0] ?? 0);
          seen.add(pair.key.value);
        }
        stack.push(pair);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return out;
}

/** Wording for issues whose schema set no message of its own. */
const plainWords: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return "is required";
    return `expected ${article(issue.expected)}`;
  }
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(" or ");
    return issue.input === undefined ? `is required: ${allowed}` : `expected ${allowed}`;
  }
  return undefined;
};

function article(type: string): string {
  const words: Record<string, string> = {
    object: "a map",
    array: "a list",
    string: "text",
    number: "a number",
    int: "a whole number",
    boolean: "true or false",
  };
  return words[type] ?? type;
}

/** `"a"`, `3`, `a list`, `a map`: a value as a message shows it, never very long. */
export function describe(value: unknown): string {
  if (value === null) return "nothing (null)";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") {
    const text = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(text);
  }
  return String(value);
}

function unknownKeyMessage(key: string, allowed: string[], suggest: boolean): string {
  const hint = suggest ? didYouMean(key, allowed) : "";
  const list = allowed.length > 0 ? ` (allowed: ${allowed.join(", ")})` : "";
  return `unknown field ${JSON.stringify(key)}${hint}${list}`;
}

/**
 * The map at `path` of a plain document, or undefined when there is none (for checks that read a
 * document leniently, entry by entry, whatever else is wrong with it).
 */
export function mapAt(value: unknown, path: Path): Record<string, unknown> | undefined {
  const found = valueAt(value, path);
  return found !== null && typeof found === "object" && !Array.isArray(found)
    ? (found as Record<string, unknown>)
    : undefined;
}

/** The value at `path` of a plain document, or `undefined`. */
export function valueAt(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The keys a map at `path` may have, read from the schema (for "unknown field" messages). */
function keysAt(schema: z.ZodType, path: Path): string[] {
  const found = new Set<string>();
  const walk = (s: z.core.$ZodType, rest: Path): void => {
    const def = s._zod.def;
    switch (def.type) {
      case "object": {
        const shape = (def as z.core.$ZodObjectDef).shape;
        if (rest.length === 0) {
          for (const k of Object.keys(shape)) found.add(k);
          return;
        }
        const next = shape[String(rest[0])];
        if (next !== undefined) walk(next, rest.slice(1));
        return;
      }
      case "record":
        if (rest.length > 0) walk((def as z.core.$ZodRecordDef).valueType, rest.slice(1));
        return;
      case "array":
        if (rest.length > 0) walk((def as z.core.$ZodArrayDef).element, rest.slice(1));
        return;
      case "union":
        for (const option of (def as z.core.$ZodUnionDef).options) walk(option, rest);
        return;
      case "pipe":
        walk((def as z.core.$ZodPipeDef).in, rest);
        return;
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "nonoptional":
      case "catch":
        walk((def as z.core.$ZodOptionalDef).innerType, rest);
        return;
      default:
        return;
    }
  };
  walk(schema, path);
  return [...found];
}

/** Orders issues as a reader meets them: by file position. */
export function byPosition(a: LocatedIssue, b: LocatedIssue): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}

/** `infra.yaml:12:11: servers.web-1.plan: message`, as compilers print it (editors link it). */
export function formatIssue(issue: LocatedIssue): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`;
  return issue.path === ""
    ? `${where}: ${issue.message}`
    : `${where}: ${issue.path}: ${issue.message}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
