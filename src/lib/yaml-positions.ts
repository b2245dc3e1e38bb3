/**
 * Where each value of a plain YAML text stands, from one more js-yaml pass, for locating the
 * problems of a text that lib/yaml-document.ts read the fast way (js-yaml). The YAML library's
 * document gives the same places but costs some ten times more to build (2.7 s for a manifest of
 * 40,000 entries, one problem or 80,000); this index is built in one pass, and each place is found
 * in the length of its path.
 *
 * The places are the library's (`range[0]` of each node): a scalar or flow collection where its
 * text starts (a quoted one at its quote, a block scalar at `|` or `>`), a block map at its first
 * key, a block list at its first `-`, a key where its text starts. Where the index cannot say
 * what the library would (an empty list item, js-yaml's single-pair map in a flow list, a shape
 * it does not recognise), it answers `undefined` and the caller asks the library.
 */
/// <reference path="../types/js-yaml.d.ts" />
import { type LoadState, load, type Schema } from "js-yaml";

export type Path = readonly PropertyKey[];

/** One node of the text: where it starts, its plain value, and its entries or items. */
interface Place {
  start: number;
  /** The plain value; `null` for an empty or null node (located at its key, as the library does). */
  value: unknown;
  /** A map's entries by key: where the key starts and the value's place. */
  entries: Map<string, Entry> | undefined;
  /** A list's items. */
  items: Place[] | undefined;
  /** Neither text nor an explicit null: the library's place for it is not known here. */
  empty: boolean;
}

/** A map entry: where its key starts, and its value's place. */
interface Entry {
  key: number;
  value: Place;
}

/** A node js-yaml is reading: where it opened, and the nodes it closed inside it, in order. */
interface Frame {
  open: number;
  /** {@link NO_CHILDREN} until the first (most nodes are scalars, which have none). */
  children: Place[];
}

const NO_CHILDREN: Place[] = [];

/** Thrown out of the listener when the text has a shape the index does not handle. */
class Unsupported extends Error {}

/** The offset of the first character of `text` at or after `from` that is not space or comment. */
function contentStart(text: string, from: number): number {
  let i = from;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23 /* # */) {
      // A comment ends at a line break, which js-yaml takes a lone `\r` for too.
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else return i;
  }
}

/**
 * The map's entries from its closed children: each key, then its value unless it had none. js-yaml
 * has loaded the text, so each key is in `result` once (it refuses a repeated key); what is left to
 * check is that the children pair up with `result`'s entries, which a null key (`{a, ~}`) or an
 * alias breaks.
 */
function mapEntries(
  result: Record<string, unknown>,
  children: readonly Place[],
  work: { lookups: number },
): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let i = 0;
  while (i < children.length) {
    work.lookups++;
    const key = children[i++]!;
    // A null key (`typeof null` is "object") or a collection as key: the library's key is not this.
    if (typeof key.value === "object") throw new Unsupported();
    const name = String(key.value);
    // A name not in `result` gives undefined or an inherited member, which no node's value is.
    const given = result[name];
    const next = children[i];
    // A key with nothing after it in a flow map (`{a, b}`) has no node of its own: it is placed
    // at its key, as the library places it, and the key's place has no entries or items either.
    let value = key;
    if (given !== null || next?.value === null) {
      if (next === undefined || !Object.is(next.value, given)) throw new Unsupported();
      value = next;
      i++;
    }
    entries.set(name, { key: key.start, value });
  }
  // js-yaml's result is a plain object: nothing enumerable is inherited.
  let keys = 0;
  for (const _ in result) keys++;
  if (entries.size !== keys) throw new Unsupported();
  return entries;
}

/** A parsed plain text's places, and the lines to turn them into line and column. */
export class YamlPositions {
  private constructor(
    private readonly root: Place,
    /** The offset of each line's first character. */
    private readonly lineStarts: readonly number[],
    private readonly work: { lookups: number },
  ) {}

  /**
   * The places of `text` as js-yaml reads it with `schema` (the schema the text was read with),
   * or undefined where the index cannot give the library's places (the caller then asks it).
   * `work.lookups` counts the entries indexed and looked up, as the library's locating does.
   */
  static of(text: string, schema: Schema, work: { lookups: number }): YamlPositions | undefined {
    // js-yaml drops a byte order mark, which would shift every offset by one.
    if (text.charCodeAt(0) === 0xfeff) return undefined;
    const top: Frame = { open: 0, children: [] };
    const stack: Frame[] = [top];
    const listener = (event: "open" | "close", state: LoadState) => {
      if (event === "open") {
        stack.push({ open: state.position, children: NO_CHILDREN });
        return;
      }
      // js-yaml closes each node it opened, in order, and never `top`, which is no node.
      const frame = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      if (parent.children === NO_CHILDREN) parent.children = [];
      parent.children.push(place(text, frame, state, work));
    };
    try {
      load(text, { schema, listener });
    } catch {
      return undefined;
    }
    // A loaded text is one document (js-yaml refuses more) or none (an empty text).
    const root = top.children[0];
    if (root === undefined || root.empty) return undefined;
    const lineStarts = [0];
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1))
      lineStarts.push(i + 1);
    return new YamlPositions(root, lineStarts, work);
  }

  /**
   * Where the value at `path` stands, by the rule of `YamlSource.locate` (its key with
   * `at: "key"`; a path that does not exist all the way at the key of the deepest entry that
   * does); undefined where only the library knows.
   */
  locate(path: Path, at?: "value" | "key"): { line: number; column: number } | undefined {
    let node = this.root;
    let keyOffset = node.start;
    for (const segment of path) {
      if (node.entries !== undefined) {
        this.work.lookups++;
        const entry = typeof segment === "symbol" ? undefined : node.entries.get(String(segment));
        if (entry === undefined) return this.position(keyOffset);
        keyOffset = entry.key;
        node = entry.value;
      } else if (node.items !== undefined && typeof segment === "number") {
        const item = node.items[segment];
        if (item === undefined) return this.position(keyOffset);
        if (item.empty) return undefined;
        keyOffset = item.start;
        node = item;
      } else {
        return this.position(keyOffset);
      }
    }
    return this.position(at === "key" || node.value === null ? keyOffset : node.start);
  }

  /** 1-based line and column of `offset`, as the library's LineCounter gives them. */
  private position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.lineStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.lineStarts[low] ?? 0) + 1 };
  }
}

/** A scalar's or an empty node's place (every place has the same fields: one shape for V8). */
function leaf(start: number, value: unknown, empty: boolean): Place {
  return { start, value, entries: undefined, items: undefined, empty };
}

/** The place of the node js-yaml just closed, from its frame and its state. */
function place(text: string, frame: Frame, state: LoadState, work: { lookups: number }): Place {
  const { result, kind } = state;
  if (kind === null) return leaf(frame.open, null, true);
  // js-yaml reads a value on a line of its own as a map key that then has no colon: the node is
  // then the one inside it.
  const only = frame.children.length === 1 ? frame.children[0] : undefined;
  if (only !== undefined && only.value === result) return only;
  const start = contentStart(text, frame.open);
  if (kind === "scalar") return leaf(start, result, false);
  if (Array.isArray(result)) {
    // js-yaml reads `[a: 1]` as a list of one single-pair map, from two nodes.
    if (frame.children.length !== result.length) throw new Unsupported();
    frame.children.forEach((child, i) => {
      if (!Object.is(child.value, result[i])) throw new Unsupported();
    });
    return { start, value: result, entries: undefined, items: frame.children, empty: false };
  }
  // Past `null` and "scalar", js-yaml's kinds are "sequence" (an array) and "mapping" (an object).
  const entries = mapEntries(result as Record<string, unknown>, frame.children, work);
  return { start, value: result, entries, items: undefined, empty: false };
}
