/**
 * The one reference check of the YAML files people write (the GitOps manifest and the emulator's
 * seed file): names given in one entry (`servers: [web-1]`, `role: deployers`) must be entries
 * declared in another section of the same file, each named once. Reported before anything is
 * created, with the nearest declared names ({@link didYouMean}).
 */
import { didYouMean } from "./names";

/**
 * Bounds that keep a document with a bad reference in every entry linear: the names of a section
 * are listed in a message only up to {@link LISTED_TARGETS_MAX}, and the nearest one is looked
 * for only among at most {@link SUGGESTION_TARGETS_MAX} (a typo among 40,000 names would cost
 * each bad reference a pass over all of them).
 */
export const LISTED_TARGETS_MAX = 20;
export const SUGGESTION_TARGETS_MAX = 100;

/** The targets of each list passed, as a set: callers pass one list for all their entries. */
const targetSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function setOf(targets: readonly string[]): ReadonlySet<string> {
  let set = targetSets.get(targets);
  if (set === undefined) {
    set = new Set(targets);
    targetSets.set(targets, set);
  }
  return set;
}

/** One bad reference: its position in the list (none for a single name) and what is wrong. */
export interface ReferenceProblem {
  index: number | undefined;
  message: string;
}

/**
 * The problems of the names in `given` (a list when `list`, else one name) that must be among
 * `targets`, the entries of `section`. `noTargets` is the hint when the section declares nothing.
 * Values that are not strings are left to the schema, which reports their type.
 */
export function referenceProblems(
  given: unknown,
  targets: readonly string[],
  options: { section: string; list: boolean; noTargets: string },
): ReferenceProblem[] {
  const names: unknown[] = options.list ? (Array.isArray(given) ? given : []) : [given];
  const problems: ReferenceProblem[] = [];
  const seen = new Set<string>();
  names.forEach((name, position) => {
    if (typeof name !== "string") return;
    const index = options.list ? position : undefined;
    if (seen.has(name))
      problems.push({ index, message: `${JSON.stringify(name)} is listed twice` });
    seen.add(name);
    if (setOf(targets).has(name)) return;
    const otherwise =
      targets.length <= LISTED_TARGETS_MAX
        ? `${options.section} has: ${targets.join(", ")}`
        : `${options.section} has ${targets.length} entries`;
    const hint =
      targets.length === 0
        ? `; ${options.noTargets}`
        : targets.length <= SUGGESTION_TARGETS_MAX
          ? didYouMean(name, targets, { otherwise })
          : `; ${otherwise}, none named so`;
    problems.push({
      index,
      message: `no entry ${JSON.stringify(name)} in ${options.section}${hint}`,
    });
  });
  return problems;
}
