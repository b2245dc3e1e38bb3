import { withoutIgnorable } from "./text";

/**
 * "Did you mean": the valid names nearest to a mistyped one, for every error message that names
 * what is allowed (permissions, manifest keys and targets, catalogue plans and images, seed files).
 */

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The valid names nearest to `wanted`, at most three, nearest first. A typo is within a third of
 * the name's length (at least 2 edits); beyond that nothing is close and none is returned.
 */
function closestNames(wanted: string, valid: readonly string[]): string[] {
  const needle = wanted.trim().toLowerCase();
  const limit = Math.max(2, Math.floor(needle.length / 3));
  return valid
    .map((name) => ({ name, distance: editDistance(needle, name.toLowerCase()) }))
    .filter((c) => c.distance <= limit)
    .sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
    .slice(0, 3)
    .map((c) => c.name);
}

/**
 * The one "did you mean" text of the package, for every layer that names what is allowed
 * (manifest, emulator seed file, YAML field names, permissions): `; did you mean "a" or "b"?` with
 * the {@link closestNames} of `wanted`; when none is close, `; <otherwise>` (usually the whole
 * list), or nothing. `separator` replaces the leading `; ` for messages built as `what: hint`.
 */
export function didYouMean(
  wanted: string,
  valid: readonly string[],
  options: { otherwise?: string; separator?: string } = {},
): string {
  const separator = options.separator ?? "; ";
  const near = closestNames(wanted, valid);
  if (near.length > 0) {
    return `${separator}did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`;
  }
  return options.otherwise === undefined ? "" : `${separator}${options.otherwise}`;
}

/**
 * The one rule for names the service keeps unique per account (tags, security groups, roles,
 * users; wire-contract.md): two names are the same name when they look the same. So they are
 * compared after Unicode compatibility normalisation (NFKC: `ｗｅｂ` is `web`, a composed `é` is
 * `e` + U+0301), without invisible characters (the joiners a name may hold, see src/lib/text.ts),
 * with runs of whitespace as one space (a page shows them so), without surrounding blanks and
 * case. The emulator enforces it, the manifest refuses two entries that fold together, and the
 * providers explain a 409 with it. Letters of different scripts that look alike (Latin `a`,
 * Cyrillic `а`) stay different names.
 */
export function nameKey(name: string): string {
  return withoutIgnorable(name.normalize("NFKC")).replace(/\s+/gu, " ").trim().toLowerCase();
}

/** Whether two names are the same name to the service ({@link nameKey}). */
export function sameName(a: string, b: string): boolean {
  return nameKey(a) === nameKey(b);
}
