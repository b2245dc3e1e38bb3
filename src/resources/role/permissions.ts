import type { Permission } from "../../api/schemas/iam";
import { didYouMean } from "../../lib/names";

/** Names sorted and without repeats: a role's permissions are a set. */
export function normaliseNames(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}

export type Resolution =
  | { ok: true; names: string[]; ids: number[] }
  | { ok: false; problems: { index: number; reason: string }[] };

/**
 * Ignores case and surrounding blanks; returns the catalogue's spelling (sorted, without repeats)
 * and the ids (ascending), or every unknown name with its position and the closest valid names.
 */
export function resolvePermissions(
  names: readonly string[],
  catalogue: readonly Permission[],
): Resolution {
  const byKey = new Map(catalogue.map((p) => [p.name.trim().toLowerCase(), p]));
  const valid = catalogue.map((p) => p.name);
  const unique = new Map<string, number>();
  const problems: { index: number; reason: string }[] = [];
  names.forEach((name, index) => {
    const permission = byKey.get(name.trim().toLowerCase());
    if (permission !== undefined) {
      unique.set(permission.name, permission.id);
      return;
    }
    const hint = didYouMean(name, valid, {
      otherwise: `valid names are ${valid.join(", ")}`,
      separator: ": ",
    });
    problems.push({ index, reason: `unknown permission ${JSON.stringify(name)}${hint}` });
  });
  if (problems.length > 0) return { ok: false, problems };
  const sorted = normaliseNames([...unique.keys()]);
  const ids = [...unique.values()].sort((a, b) => a - b);
  return { ok: true, names: sorted, ids };
}
