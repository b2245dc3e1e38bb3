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
import { readFileSync } from "node:fs";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { z } from "zod";
import { formatPath } from "../api/schemas/common";
import { didYouMean } from "./names";
import { whyUnreadable } from "./read-failure";

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

/** A parsed YAML file: its plain value, and where each of its values stands. */
export class YamlSource {
  private constructor(
    /** The file as the caller named it, for messages. */
    readonly file: string,
    /** The document as plain data (maps as objects, sequences as arrays). */
    readonly value: unknown,
    private readonly root: Node | null,
    private readonly lines: LineCounter,
  ) {}

  /**
   * Parses `text`. Fails with every syntax problem (bad indentation, duplicate keys, unresolved
   * aliases, several documents in one file), each located.
   */
  static parse(text: string, file: string): YamlSource | LocatedIssue[] {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const at = (offset: number, message: string): LocatedIssue => {
      const { line, col } = lines.linePos(offset);
      return { file, line, column: col, path: "", message };
    };
    if (doc.errors.length > 0) {
      return doc.errors.map((e) => at(e.pos[0], `YAML syntax: ${lowerFirst(e.message)}`));
    }
    let value: unknown;
    try {
      // The default alias limit stands: a file of nested aliases must not expand without end.
      value = doc.toJS();
    } catch (err) {
      return [at(0, `YAML: ${lowerFirst(err instanceof Error ? err.message : String(err))}`)];
    }
    return new YamlSource(file, value, doc.contents, lines);
  }

  /** Reads and parses a file; an unreadable file is one issue at its first line. */
  static read(file: string, displayName: string = file): YamlSource | LocatedIssue[] {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      const message = `cannot read: ${whyUnreadable(err)}`;
      return [{ file: displayName, line: 1, column: 1, path: "", message }];
    }
    return YamlSource.parse(text, displayName);
  }

  /**
   * Where the value at `path` stands (`at: "key"`: where its key stands, for problems with the
   * key itself). A path that does not exist all the way is located at the key of the deepest
   * entry that does: a missing field is reported at the entry that lacks it.
   */
  locate(path: Path, at: "value" | "key" = "value"): { line: number; column: number } {
    let node: Node | null = this.root;
    let keyOffset = node?.range?.[0] ?? 0;
    let valueOffset: number | undefined = keyOffset;
    for (const segment of path) {
      let next: Node | null | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
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
    const { line, col } = this.lines.linePos(offset);
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

function valueAt(value: unknown, path: Path): unknown {
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
