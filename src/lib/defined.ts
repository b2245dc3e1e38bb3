/**
 * The one "drop undefined keys": zod leaves absent optional keys out, but a caller's object may
 * spell them `undefined`; under `exactOptionalPropertyTypes` such a key must not be passed on
 * where the property is optional, and results (outputs, data-source answers) never carry it.
 */

/** `T` with every property that may be `undefined` turned into an optional one. */
export type DefinedOnly<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** `value` without its `undefined` properties. */
export function definedOnly<T extends object>(value: T): DefinedOnly<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as DefinedOnly<T>;
}
