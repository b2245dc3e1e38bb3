import type { OutputInstance } from "@pulumi/pulumi";

/** The outputs a resource class declares (`declare readonly x: Output<...>`), without `id` and `urn`. */
export type OutputNames<R> = Exclude<
  { [K in keyof R]-?: R[K] extends OutputInstance<unknown> ? K : never }[keyof R],
  "id" | "urn"
>;

/** `args` with every output of `names` present, as `undefined` where `args` does not set it. */
export function withEveryOutput(names: readonly string[], args: object): Record<string, unknown> {
  return { ...Object.fromEntries(names.map((name) => [name, undefined])), ...args };
}
