/**
 * The property bag a resource class hands to `super()`. The SDK gives a resource an output only
 * for the properties present in that bag, so an output the program's arguments leave out (any
 * output of `X.get(name, id)`, which passes no arguments) would stay `undefined` at run time
 * although the class declares it. Each class therefore lists its declared outputs once, checked
 * against the class by the compiler, and passes `withEveryOutput(...)`.
 */
import type { OutputInstance } from "@pulumi/pulumi";

/** The outputs a resource class declares (`declare readonly x: Output<...>`), without `id` and `urn`. */
export type OutputNames<R> = Exclude<
  { [K in keyof R]-?: R[K] extends OutputInstance<unknown> ? K : never }[keyof R],
  "id" | "urn"
>;

/**
 * Every declared output of a class, as an object literal so that the compiler refuses a missing
 * or a misspelt one: `const TAG_OUTPUTS: EveryOutput<Tag> = { name: true, ... }`.
 */
export type EveryOutput<R> = Record<OutputNames<R>, true>;

/** `args` with every output of `outputs` present, as `undefined` where `args` does not set it. */
export function withEveryOutput(
  outputs: Readonly<Record<string, true>>,
  args: object,
): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const name of Object.keys(outputs)) props[name] = undefined;
  return { ...props, ...args };
}
