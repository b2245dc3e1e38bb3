/**
 * The one reference check of the YAML files people write (the GitOps manifest and the emulator's
 * seed file): names given in one entry (`servers: [web-1]`, `role: deployers`) must be entries
 * declared in another section of the same file, each named once. Reported before anything is
 * created, with the nearest declared names ({@link didYouMean}).
 */
import { didYouMean } from "./names";

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
    if (targets.includes(name)) return;
    const hint =
      targets.length === 0
        ? `; ${options.noTargets}`
        : didYouMean(name, targets, { otherwise: `${options.section} has: ${targets.join(", ")}` });
    problems.push({
      index,
      message: `no entry ${JSON.stringify(name)} in ${options.section}${hint}`,
    });
  });
  return problems;
}
