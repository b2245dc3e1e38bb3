/** The one way a program refers to an object by id: a positive integer or its text (`"12"`). */
import { z } from "zod";
import { expected } from "../api/schemas/common";

/** Normalised to a number; `what` has its article: `"a server id"`. */
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
    ctx.addIssue({ code: "custom", message: `expected ${allowed}, got ${JSON.stringify(value)}` });
    return z.NEVER;
  });
}

/** An id the engine hands a provider, refused (not reported gone) when it cannot exist. */
export function resourceIdOf(id: string, what: string): number {
  const parsed = idReference(what).safeParse(id);
  if (parsed.success) return parsed.data;
  throw new Error(parsed.error.issues[0]?.message ?? `expected ${what}`);
}
