/**
 * `value` without its `undefined` properties. zod leaves absent optional keys out, but a caller's
 * object may spell them `undefined`; under `exactOptionalPropertyTypes` such a key must not be
 * passed on where the property is optional.
 */
export function definedOnly<T extends object>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
