/**
 * The one bound on JSON nesting, and the one walk over a parsed JSON value. Every check of a
 * JSON document runs in time linear in its size and never recurses on the document's depth: the
 * depth is measured on the text before `JSON.parse` (a scan, no stack), and what walks the
 * parsed value ({@link forEachJsonValue}) keeps its own stack and builds a path only for the
 * values it reports.
 */

/**
 * How deeply arrays and objects may nest in a JSON document. The deepest request body of the
 * API is three levels (`{"rules": [{"dport": ...}]}`); 64 leaves room for any client's framing.
 */
export const MAX_JSON_DEPTH = 64;

/** Where a JSON text first nests deeper than allowed. */
export interface JsonTooDeep {
  /** The bound that was passed. */
  limit: number;
  /** The character offset (0-based) of the bracket that went past it. */
  offset: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The first place `text` nests arrays and objects more than `limit` deep, or undefined. One pass
 * over the characters, brackets inside strings ignored; the text need not be valid JSON (the
 * parser reports that), so the bound is checked before any work that grows with the depth.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): JsonTooDeep | undefined {
  let depth = 0;
  let inString = false;
  for (let offset = 0; offset < text.length; offset++) {
    const code = text.charCodeAt(offset);
    if (inString) {
      if (code === BACKSLASH) offset++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth > limit) return { limit, offset };
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

/** A step of a path into a JSON value: an object key or an array index. */
export type JsonPathStep = string | number;

interface Pending {
  value: unknown;
  /** The step from the parent, and the parent's own node: a path is built only when asked for. */
  step: JsonPathStep | undefined;
  parent: Pending | undefined;
}

function pathOf(node: Pending): JsonPathStep[] {
  const path: JsonPathStep[] = [];
  for (let at: Pending | undefined = node; at?.step !== undefined; at = at.parent) {
    path.push(at.step);
  }
  return path.reverse();
}

/**
 * Calls `visit` once for every value in `root` (itself included), and once for every object key
 * (`key` set, `value` the key's value), in document order; `path()` is the path to the value (the
 * object holding the key, for a key). Iterative: any depth, time linear in the number of values.
 * Returns how many values were visited.
 */
export function forEachJsonValue(
  root: unknown,
  visit: (value: unknown, path: () => JsonPathStep[], key?: string) => void,
): number {
  const stack: Pending[] = [{ value: root, step: undefined, parent: undefined }];
  let visited = 0;
  while (stack.length > 0) {
    const node = stack.pop() as Pending;
    visited++;
    visit(node.value, () => pathOf(node));
    const { value } = node;
    if (typeof value !== "object" || value === null) continue;
    const children: Pending[] = [];
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        children.push({ value: item, step: index, parent: node });
      });
    } else {
      for (const [key, item] of Object.entries(value)) {
        visit(item, () => pathOf(node), key);
        children.push({ value: item, step: key, parent: node });
      }
    }
    // Pushed in reverse, so values come off the stack in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Pending);
  }
  return visited;
}
