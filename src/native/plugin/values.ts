/**
 * Property values as the engine sends them to a provider that accepts secrets: a secret is the
 * object `{[SIG]: SECRET_SIG, value}`, a value not known yet (preview) is the string
 * {@link UNKNOWN}. The resource implementations work on plain values, so the plugin takes the
 * secrets off on the way in and puts them back on the way out.
 */
import { isDeepStrictEqual } from "node:util";
import { type Props, UNKNOWN } from "../../resources/common";

export type { Props };
export { UNKNOWN };

/** The key that marks a special value, and the value that says "secret". */
const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isSecret(v: unknown): v is { value?: unknown } {
  return isRecord(v) && v[SIG] === SECRET_SIG;
}

export function secret(v: unknown): unknown {
  return isSecret(v) ? v : { [SIG]: SECRET_SIG, value: v };
}

/** `v` with every secret replaced by its value, at any depth. */
export function reveal(v: unknown): unknown {
  if (isSecret(v)) return reveal(v.value);
  if (Array.isArray(v)) return v.map(reveal);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reveal(x)]));
  return v;
}

function holdsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (isRecord(v)) return Object.values(v).some(holdsSecret);
  return false;
}

/** The plain properties and the names of those that held a secret somewhere inside. */
export function unwrap(props: Props): { plain: Props; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  for (const [k, v] of Object.entries(props)) if (holdsSecret(v)) secretKeys.add(k);
  return { plain: reveal(props) as Props, secretKeys };
}

/**
 * Plain `props` made secret again where a property of the same name was secret on the way in,
 * and where the kind generates a secret (`alwaysSecret`). `undefined` values are dropped: the
 * wire has none.
 */
export function rewrap(
  props: Props,
  secretKeys: ReadonlySet<string>,
  alwaysSecret: readonly string[] = [],
): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    out[k] = secretKeys.has(k) || alwaysSecret.includes(k) ? secret(v) : v;
  }
  return out;
}

/** Deep equality of two plain values. */
export function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
