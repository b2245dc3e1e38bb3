/**
 * The import file for `pulumi import --file` (pulumi/pulumi `pkg/cmd/pulumi/operations/import.go`,
 * `importFile`): `{"nameTable"?, "resources": [{"type", "name", "id"}]}`, one entry per unmanaged
 * object that imports cleanly, with the native provider's tokens (the engine cannot import into a
 * dynamic provider, pulumi/pulumi#16175).
 *
 * Names: the object's name at the service made a valid Pulumi name (lower case, `-` between
 * words), the same from run to run; objects whose names fold to the same one get their kind and
 * id appended. Order: what an object refers to comes before it (keys, groups and roles, then
 * servers, then tags and attachments), so the engine imports them in that order and the code the
 * CLI generates refers to the earlier resources (`serverId: web.id`) instead of repeating ids.
 */
import type { ResourceKind } from "../resources/kinds";
import type { LiveObject } from "./live";

/** One entry of the CLI's import file. */
export interface ImportEntry {
  type: string;
  name: string;
  id: string;
  /** Set for accounts with an explicit provider: a key of `nameTable`. */
  provider?: string;
}

export interface ImportFile {
  nameTable?: Record<string, string>;
  resources: ImportEntry[];
}

/**
 * Each kind's place in an import file, referenced kinds first; every kind has one, or this fails to
 * compile. Users are never in the file (no call lists them); their place is first, as before.
 */
export const IMPORT_ORDER = {
  User: -1,
  SshKey: 0,
  SecurityGroup: 1,
  Role: 2,
  Server: 3,
  Tag: 4,
  SecurityGroupAttachment: 5,
} as const satisfies Readonly<Record<ResourceKind, number>>;

const MAX_NAME = 60;

/** `Web Server #1` → `web-server-1`; an empty result or one starting with a digit gets a prefix. */
function slug(text: string, kind: ResourceKind): string {
  const base = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME)
    .replace(/-+$/, "");
  const prefix = kind.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? "" : "-") + c.toLowerCase());
  return base === "" || /^\d/.test(base)
    ? `${prefix}-${base || "unnamed"}`.replace(/-$/, "")
    : base;
}

const kindSlug = (kind: ResourceKind) =>
  kind.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? "" : "-") + c.toLowerCase());

/** `<kind> <id>`: an object's key among all kinds. */
export const objectKey = (o: { kind: ResourceKind; id: string }) => `${o.kind} ${o.id}`;

/**
 * The logical name of each object, keyed by {@link objectKey}: unique among `objects`, and a
 * function of them alone, so the same objects get the same names on every run.
 */
export function logicalNames(objects: readonly LiveObject[]): Map<string, string> {
  const sorted = [...objects].sort(
    (a, b) =>
      IMPORT_ORDER[a.kind] - IMPORT_ORDER[b.kind] ||
      Number(a.id.split("/")[0]) - Number(b.id.split("/")[0]) ||
      a.id.localeCompare(b.id),
  );
  const bySlug = new Map<string, LiveObject[]>();
  for (const o of sorted) {
    const s = slug(o.name, o.kind);
    const group = bySlug.get(s);
    if (group === undefined) bySlug.set(s, [o]);
    else group.push(o);
  }
  const names = new Map<string, string>();
  const taken = new Set(bySlug.keys());
  for (const [s, group] of bySlug) {
    if (group.length === 1 && group[0] !== undefined) {
      names.set(objectKey(group[0]), s);
      continue;
    }
    for (const o of group) {
      // `<name>-<kind>-<id>`: unique, since a kind's ids are; never another object's own name.
      let name = `${s}-${kindSlug(o.kind)}-${o.id.replace("/", "-")}`;
      while (taken.has(name)) name = `${name}-${o.id.replace("/", "-")}`;
      taken.add(name);
      names.set(objectKey(o), name);
    }
  }
  return names;
}

/** The import file for `objects` (those that import cleanly), named by `names`. */
export function importFileOf(
  objects: readonly LiveObject[],
  names: ReadonlyMap<string, string>,
  provider?: { name: string; urn: string },
): ImportFile {
  const resources = [...objects]
    .sort(
      (a, b) =>
        IMPORT_ORDER[a.kind] - IMPORT_ORDER[b.kind] ||
        (names.get(objectKey(a)) ?? "").localeCompare(names.get(objectKey(b)) ?? ""),
    )
    .map((o): ImportEntry => {
      const entry: ImportEntry = {
        type: `cloudinfra:index:${o.kind}`,
        name: names.get(objectKey(o)) ?? objectKey(o),
        id: o.id,
      };
      if (provider !== undefined) entry.provider = provider.name;
      return entry;
    });
  return provider === undefined
    ? { resources }
    : { nameTable: { [provider.name]: provider.urn }, resources };
}
