/**
 * The resources' own input rules, applied to every entry when the manifest is read: each entry is
 * turned into the arguments its resource would receive (references to other entries and the
 * catalogue's answers, not known yet, as Pulumi's unknown value, which every rule lets pass), the
 * kind's rules (../resources/input-rules.ts, what `check` runs) judge them, and each issue is
 * placed at the manifest field it came from. So a value a resource would refuse at `up`, after
 * other resources were created, is refused before anything is registered, with line:col; and
 * there is one implementation of each rule.
 */
import { formatPath } from "../api/schemas/common";
import { definedOnly } from "../lib/defined";
import { describe, type LocatedIssue, valueAt, type YamlSource } from "../lib/yaml-document";
import { UNKNOWN } from "../resources/common";
import { INPUT_RULES } from "../resources/input-rules";
import { kindOfSection } from "../resources/kinds";
import { ENTRY_FIELD_OF_INPUT, type EntryArgs, plainArgs, type Section } from "./schema";

type Entry = Record<string, unknown>;
type Path = readonly PropertyKey[];

/**
 * How a section's entries become its kind's arguments (the kind whose `section` it is in
 * ../resources/kinds.ts): the arguments the component would pass (component.ts), with unknowns
 * where it resolves ids: the entry's plain fields as they are, the other inputs spelt out.
 */
type SectionArgs = {
  readonly [S in Section]: (
    key: string,
    entry: Entry,
    publicKeyFiles: ReadonlyMap<string, string>,
  ) => EntryArgs<S>;
};

/** `[UNKNOWN]` for a list of references, `UNKNOWN` for one, left out when the entry has none. */
function referenced(value: unknown): unknown {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.map(() => UNKNOWN) : UNKNOWN;
}

function rulesOf(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? [];
  return value.map((rule: unknown) =>
    rule !== null && typeof rule === "object" && !Array.isArray(rule) ? definedOnly(rule) : rule,
  );
}

const SECTION_ARGS: SectionArgs = {
  sshKeys: (key, entry, files) => {
    // A file that could not be read is reported by the loader at publicKeyFile.
    const publicKey =
      entry["publicKey"] ??
      files.get(key) ??
      (entry["publicKeyFile"] !== undefined ? UNKNOWN : undefined);
    return {
      ...plainArgs("sshKeys", entry),
      name: entry["name"] ?? key,
      publicKey,
      generate: publicKey === undefined ? true : undefined,
    };
  },
  securityGroups: (key, entry) => ({
    ...plainArgs("securityGroups", entry),
    name: entry["name"] ?? key,
    rules: rulesOf(entry["rules"]),
  }),
  roles: (key, entry) => ({ ...plainArgs("roles", entry), name: entry["name"] ?? key }),
  users: (key, entry) => ({
    ...plainArgs("users", entry),
    name: entry["name"] ?? key,
    type: entry["type"] ?? "api",
    roleId: UNKNOWN,
  }),
  servers: (key, entry) => ({
    ...plainArgs("servers", entry),
    name: entry["name"] ?? key,
    // Resolved from the catalogue by catalogue.ts, which reports a plan or image it lacks.
    planId: UNKNOWN,
    image: UNKNOWN,
    sshKeyIds: referenced(entry["sshKeys"]),
    securityGroupIds: referenced(entry["securityGroups"]),
  }),
  tags: (key, entry) => ({
    ...plainArgs("tags", entry),
    name: entry["name"] ?? key,
    serverIds: referenced(entry["servers"]),
  }),
};

/** One issue of a kind's rules for one entry, as a manifest path and message. */
export interface EntryIssue {
  /** The path inside the entry (`["rules", 0, "source"]`); `[]` for the entry's key itself. */
  path: Path;
  message: string;
}

/**
 * What the kind's rules refuse in one entry of `section` (the entry read leniently, whatever else
 * is wrong with it). An issue on `name` of an entry without one is about its key, the name used.
 */
export function entryIssues(
  section: Section,
  key: string,
  entry: Entry,
  publicKeyFiles: ReadonlyMap<string, string> = new Map(),
): EntryIssue[] {
  // The component never passes an `undefined` argument.
  const args = definedOnly(SECTION_ARGS[section](key, entry, publicKeyFiles));
  const renamed: Readonly<Record<string, string>> = ENTRY_FIELD_OF_INPUT[section];
  const { issues } = INPUT_RULES[kindOfSection(section)](args);
  return issues.map((issue) => {
    const [first, ...rest] = issue.path;
    if (first === "name" && entry["name"] === undefined)
      return { path: [], message: issue.message };
    if (first === "publicKey" && entry["publicKey"] === undefined) {
      const field = entry["publicKeyFile"] !== undefined ? "publicKeyFile" : "generate";
      return { path: [field, ...rest], message: issue.message };
    }
    const field = typeof first === "string" ? (renamed[first] ?? first) : first;
    return { path: field === undefined ? [] : [field, ...rest], message: issue.message };
  });
}

/** The paths above `path` (`a.b[0].c` → `a.b[0]`, `a.b`, `a`), nearest first. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] === "." || path[i] === "[") out.push(path.slice(0, i));
  }
  return out;
}

/**
 * The places the loader already reported, for {@link alreadyReported}: each path, and every path
 * above one. Each set is made once, the second only when first asked (most issues of a rule are
 * at a reported path itself), so checking an issue costs the length of its path, not the number
 * of issues (a manifest with a mistake in each of 40,000 entries stays linear).
 */
class ReportedPlaces {
  readonly exact: ReadonlySet<string>;
  private aboveSet: Set<string> | undefined;

  constructor(private readonly reported: readonly LocatedIssue[]) {
    this.exact = new Set(reported.map((issue) => issue.path));
  }

  /** Every path above a reported one. */
  get above(): ReadonlySet<string> {
    if (this.aboveSet === undefined) {
      const above = new Set<string>();
      for (const { path } of this.reported) {
        // Nearest first: once one is known, so are those above it.
        for (const a of ancestors(path)) {
          if (above.has(a)) break;
          above.add(a);
        }
      }
      this.aboveSet = above;
    }
    return this.aboveSet;
  }
}

/**
 * Whether the loader reported a problem about the same value as `path`: the same path, or one
 * inside the other, below the entry itself (a rule about a whole entry never hides one about a
 * field of it).
 */
function alreadyReported(places: ReportedPlaces, path: string, entry: string): boolean {
  if (places.exact.has(path)) return true;
  if (path !== entry && places.above.has(path)) return true;
  return ancestors(path).some((a) => a !== entry && places.exact.has(a));
}

/**
 * The issues of every entry by its kind's rules, located, except where the loader already
 * reported a problem at the same place (a value that is not even of the right type is said once).
 */
export function checkResourceRules(
  source: YamlSource,
  entriesOf: (section: Section) => Record<string, Entry>,
  publicKeyFiles: ReadonlyMap<string, string>,
  reported: readonly LocatedIssue[],
): LocatedIssue[] {
  const out: LocatedIssue[] = [];
  const places = new ReportedPlaces(reported);
  for (const section of Object.keys(SECTION_ARGS) as Section[]) {
    for (const [key, entry] of Object.entries(entriesOf(section))) {
      for (const issue of entryIssues(section, key, entry, publicKeyFiles)) {
        const path = [section, key, ...issue.path];
        // Asked before the issue is worded and located: most are already said.
        if (alreadyReported(places, formatPath(path), formatPath([section, key]))) continue;
        if (issue.path.length === 0) {
          out.push(source.issue(path, `the name ${issue.message}`, "key"));
          continue;
        }
        // What was given helps with a wrong value, as the schema's messages say it.
        const given = valueAt(entry, issue.path);
        const shown =
          given === undefined || issue.message.includes("got ")
            ? issue.message
            : `${issue.message} (got ${describe(given)})`;
        out.push(source.issue(path, shown));
      }
    }
  }
  return out;
}
