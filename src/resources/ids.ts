/**
 * The one way a program refers to an object by id: a positive integer, or its decimal text, as
 * Pulumi resource ids are (`server.id` is `"12"`). Everything that takes an id (`planId`,
 * `serverIds`, `roleId`, `adoptId`, the data sources' `id`) parses it with
 * {@link idReference}, so it accepts the same spellings, stores the same number and fails with
 * the same words.
 */
import { z } from "zod";
import { expected } from "../api/schemas/common";

/**
 * A schema for an id reference, normalised to a number. `what` names the object with its
 * article, as the message says it: `"a server id"`, `"an SSH key id"`.
 */
export function idReference(what: string) {
  const allowed = `${what} (a positive integer, or its decimal text)`;
  // `z.int()`, not `z.number()`: the package schema types the property `integer` from it.
  const error = (issue: { input?: unknown }) =>
    typeof issue.input === "number"
      ? `expected ${allowed}, got ${JSON.stringify(issue.input)}`
      : expected(allowed)(issue);
  return z.union([z.int(), z.string()], { error }).transform((value, ctx) => {
    const id =
      typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(id) && id > 0) return id;
    ctx.addIssue({
      code: "custom",
      message: `expected ${allowed}, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  });
}

/**
 * The number in a resource id the engine hands a provider (`"12"`), or an error that says what an
 * id of this kind is: `what` as for {@link idReference}. Reads that look an id up in a list must
 * refuse ids that cannot exist rather than report them gone.
 */
export function resourceIdOf(id: string, what: string): number {
  const parsed = idReference(what).safeParse(id);
  if (parsed.success) return parsed.data;
  throw new Error(parsed.error.issues[0]?.message ?? `expected ${what}`);
}
