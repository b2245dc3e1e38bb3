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
  return z.union([z.number(), z.string()], { error: expected(allowed) }).transform((value, ctx) => {
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
