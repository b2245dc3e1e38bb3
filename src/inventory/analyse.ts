/**
 * The inventory's verdict, from what was listed and what the stacks record (pure): per account
 * and kind, the objects managed (and by which resources), unmanaged, ignored, missing and managed
 * twice, and the coverage. Nothing is called complete or 100 % covered that was not read whole.
 */
import type { ResourceKind } from "../resources/kinds";
import { type IgnoreRule, ignoredBy } from "./ignore";
import { logicalNames, objectKey } from "./import-file";
import type { KindListing, LiveObject } from "./live";
import {
  type AccountReport,
  EXIT,
  type InventoryReport,
  type KindReport,
  type Problem,
  type StackRefEntry,
} from "./report-schema";
import type { ManagedEntry, StackState } from "./states";

/** One account as it was read: its lists, or why none could be read. */
export interface AccountReading {
  name: string;
  endpoint: string;
  /** The lists, in import order; empty when `error` is set. */
  listings: KindListing[];
  /** Why nothing of the account could be read (settings, a refused key). */
  error?: string;
  /** The stacks whose objects belong to this account. */
  states: StackState[];
}

export interface AnalyseInput {
  accounts: AccountReading[];
  /** Stack files that were not stack exports. */
  stateProblems: { file: string; message: string }[];
  ignore: IgnoreRule[];
  /** The ignore file's name, for the rules' `<file>:<line>`. */
  ignoreFile?: string;
}

export const UNKNOWN_USERS =
  "Users: the API has no call that lists users (nor one that reads one), so unmanaged users cannot be found and users missing from the account cannot be told apart; their coverage is unknown. A user cannot be imported either: declare it in a program (a new user, with a new key).";
const UNKNOWN_SYSTEM_ROLES =
  "System roles are the service's, shared by every account: they are left out, since no stack can manage them.";
const UNKNOWN_LINKS =
  "A tag's servers are part of the Tag resource, not objects of their own: a tag is managed when its Tag resource is, whatever servers it lists.";

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

const refOf = (e: ManagedEntry): StackRefEntry => ({ stack: e.stack, file: e.file, urn: e.urn });

function kindReport(
  listing: KindListing,
  entries: ManagedEntry[],
  ignore: IgnoreRule[],
  ignoreFile: string,
  managersOf: (kind: ResourceKind, id: string) => ManagedEntry[],
  names: Map<string, string>,
): KindReport {
  const byId = new Map<string, ManagedEntry[]>();
  for (const e of entries) pushTo(byId, e.id, e);
  const report: KindReport = {
    kind: listing.kind,
    listable: listing.listable,
    complete: listing.complete,
    requests: listing.requests,
    error: listing.error ?? null,
    counts: { live: null, managed: 0, unmanaged: null, ignored: 0, missing: null, conflicts: 0 },
    coverage: null,
    coverageNote: null,
    managed: [],
    unmanaged: [],
    ignored: [],
    missing: [],
    conflicts: [],
  };
  // Managed more than once: two resources (in one stack or two) claim the same object.
  const conflictsOf = (id: string, name: string) => {
    const managers = byId.get(id) ?? [];
    return managers.length > 1 ? [{ id, name, stacks: managers.map(refOf) }] : [];
  };
  if (!listing.listable) {
    report.counts.managed = byId.size;
    report.managed = [...byId].map(([id, m]) => ({ id, name: "", stacks: m.map(refOf) }));
    report.conflicts = [...byId.keys()].flatMap((id) => conflictsOf(id, ""));
    report.counts.conflicts = report.conflicts.length;
    report.coverageNote = "unknown: the API cannot list users";
    return report;
  }
  const seen = new Set<string>();
  for (const o of listing.objects) {
    seen.add(o.id);
    const managers = byId.get(o.id);
    if (managers !== undefined) {
      report.managed.push({ id: o.id, name: o.name, stacks: managers.map(refOf) });
      report.conflicts.push(...conflictsOf(o.id, o.name));
      continue;
    }
    const rule = ignoredBy(ignore, o);
    if (rule !== undefined) {
      report.ignored.push({
        id: o.id,
        name: o.name,
        rule: `${ignoreFile}:${rule.line}: ${rule.text}`,
      });
      continue;
    }
    report.unmanaged.push(unmanagedEntry(o, managersOf, names));
  }
  report.counts.live = listing.objects.length;
  report.counts.managed = report.managed.length;
  report.counts.unmanaged = report.unmanaged.length;
  report.counts.ignored = report.ignored.length;
  report.counts.conflicts = report.conflicts.length;
  if (listing.complete) {
    report.missing = [...byId]
      .filter(([id]) => !seen.has(id))
      .map(([id, m]) => ({ id, stacks: m.map(refOf) }));
    report.counts.missing = report.missing.length;
    const covered = report.counts.managed + report.unmanaged.length;
    report.coverage = covered === 0 ? 100 : round(report.counts.managed / covered);
  } else {
    report.coverageNote = "unknown: the list was not read whole";
  }
  return report;
}

const round = (ratio: number) => Math.floor(ratio * 1000) / 10;

function unmanagedEntry(
  o: LiveObject,
  managersOf: (kind: ResourceKind, id: string) => ManagedEntry[],
  names: Map<string, string>,
): KindReport["unmanaged"][number] {
  return {
    id: o.id,
    name: o.name,
    logicalName: o.notImportable === undefined ? (names.get(objectKey(o)) ?? null) : null,
    notImportable: o.notImportable ?? null,
    references: o.references.map((r) => ({
      field: r.field,
      kind: r.kind,
      id: r.id,
      logicalName: names.get(objectKey(r)) ?? null,
      managedBy: [...new Set(managersOf(r.kind, r.id).map((m) => m.stack))],
    })),
  };
}

/** The objects of an account that no stack manages, no rule ignores, and that import cleanly. */
export function importable(reading: AccountReading, ignore: IgnoreRule[]): LiveObject[] {
  const managed = new Set(reading.states.flatMap((s) => s.entries.map(objectKey)));
  return reading.listings.flatMap((l) =>
    l.objects.filter(
      (o) =>
        o.notImportable === undefined &&
        !managed.has(objectKey(o)) &&
        ignoredBy(ignore, o) === undefined,
    ),
  );
}

function accountReport(a: AccountReading, input: AnalyseInput): AccountReport {
  const entries = a.states.flatMap((s) => s.entries);
  const byKey = new Map<string, ManagedEntry[]>();
  for (const e of entries) pushTo(byKey, objectKey(e), e);
  const managersOf = (kind: ResourceKind, id: string) => byKey.get(objectKey({ kind, id })) ?? [];
  const names = logicalNames(importable(a, input.ignore));
  const kinds = a.listings.map((l) =>
    kindReport(
      l,
      entries.filter((e) => e.kind === l.kind),
      input.ignore,
      input.ignoreFile ?? "ignore",
      managersOf,
      names,
    ),
  );
  const listable = kinds.filter((k) => k.listable);
  const complete = a.error === undefined && listable.every((k) => k.complete);
  const managed = listable.reduce((n, k) => n + k.counts.managed, 0);
  const unmanaged = listable.reduce((n, k) => n + (k.counts.unmanaged ?? 0), 0);
  return {
    name: a.name,
    endpoint: a.endpoint,
    complete,
    error: a.error ?? null,
    coverage: !complete
      ? null
      : managed + unmanaged === 0
        ? 100
        : round(managed / (managed + unmanaged)),
    kinds,
  };
}

/** The report (without import files, which the caller writes and records). */
export function analyse(input: AnalyseInput): InventoryReport {
  const accounts = input.accounts.map((a) => accountReport(a, input));
  const problems: Problem[] = [
    ...input.stateProblems.map((p) => ({
      source: "state" as const,
      subject: p.file,
      message: p.message,
    })),
  ];
  for (const a of input.accounts) {
    for (const s of a.states) {
      for (const u of s.unreadable) problems.push({ source: "state", subject: s.file, message: u });
    }
  }
  for (const a of accounts) {
    if (a.error !== null) problems.push({ source: "account", subject: a.name, message: a.error });
    for (const k of a.kinds) {
      if (k.listable && !k.complete && a.error === null) {
        problems.push({ source: "list", subject: `${a.name}/${k.kind}`, message: k.error ?? "" });
      }
    }
  }
  const found = accounts.some((a) =>
    a.kinds.some(
      (k) => (k.counts.unmanaged ?? 0) + (k.counts.missing ?? 0) + k.counts.conflicts > 0,
    ),
  );
  const verdict = problems.length > 0 ? "incomplete" : found ? "found" : "clean";
  return {
    schemaVersion: 1,
    verdict,
    exitCode: EXIT[verdict],
    stacks: input.accounts.flatMap((a) =>
      a.states.map((s) => ({
        file: s.file,
        stack: s.stack,
        account: a.name,
        resources: s.entries.length,
      })),
    ),
    accounts,
    problems,
    unknowns: [UNKNOWN_USERS, UNKNOWN_SYSTEM_ROLES, UNKNOWN_LINKS],
    importFiles: [],
  };
}
