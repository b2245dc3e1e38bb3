/**
 * What every data source shares: argument validation with messages that name the argument,
 * filter and candidate rendering for "nothing matched" / "several matched" errors, and the
 * bridge from a promise-returning lookup to its `...Output` variant.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { messageOf } from "../lib/message";
import { didYouMean } from "../lib/names";
import type { DataSourceOptions } from "./call";
import { AmbiguousMatchError, InvalidArgumentError, NoMatchError } from "./errors";

/** Options of an `...Output` data source call. */
export interface DataSourceOutputOptions extends pulumi.InvokeOutputOptions {
  /** Abandons the API call; the Output fails with the client's `AbortedError` as cause. */
  signal?: AbortSignal;
}

function describeInput(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Validates a data source's arguments. Unknown argument names (typos) and wrong values fail with
 * one {@link InvalidArgumentError} that names every argument at fault and what it got.
 */
export function parseArgs<S extends z.ZodType>(fn: string, schema: S, args: unknown): z.output<S> {
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
    throw new InvalidArgumentError(
      fn,
      `expected an object of named arguments (got ${describeInput(args)})`,
    );
  }
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((k) => `unknown argument ${JSON.stringify(k)}`).join("; ");
    }
    const name = issue.path.map(String).join(".");
    if (name === "") return issue.message;
    const input = valueAt(args, issue.path);
    // Shared schemas (an id reference) already say what they got.
    const received =
      input === undefined || /, got /.test(issue.message) ? "" : ` (got ${describeInput(input)})`;
    return `invalid argument ${name}: ${issue.message}${received}`;
  });
  throw new InvalidArgumentError(fn, problems.join("; "));
}

/** A JavaScript regular expression given as text; the message quotes the engine's complaint. */
export const RegexArg = z.string({ error: "expected a regular expression as a string" }).check(
  z.superRefine((source, ctx) => {
    try {
      new RegExp(source);
    } catch (err) {
      const why = messageOf(err);
      ctx.addIssue({ code: "custom", message: `not a valid regular expression: ${why}` });
    }
  }),
);

/**
 * The items whose name `nameRegex` matches (searched anywhere in the name, case-sensitive), in
 * their order; all of them when no pattern is given. The one name filter of every list data source.
 */
export function matchingName<T>(
  items: readonly T[],
  nameRegex: string | undefined,
  nameOf: (item: T) => string,
): T[] {
  if (nameRegex === undefined) return [...items];
  const regex = new RegExp(nameRegex);
  return items.filter((item) => regex.test(nameOf(item)));
}

/** The name filter of every list data source (`getServers`, `getTags`, ...). */
export interface NameRegexArgs {
  /**
   * Only the objects whose name matches this JavaScript regular expression, searched anywhere in
   * the name and case-sensitive (anchor it with `^...$` for a whole-name match).
   */
  nameRegex?: string | undefined;
}

/** {@link NameRegexArgs} whose value may be an Output. */
export interface NameRegexOutputArgs {
  /** See {@link NameRegexArgs.nameRegex}. */
  nameRegex?: pulumi.Input<string | undefined>;
}

/** What every list data source's result holds beside its items. */
export interface ListedIds {
  /** The items' ids, in the order of the items. */
  ids: number[];
  /** The items' names, in the same order. */
  names: string[];
}

/** A list data source's result: the items under `key`, with their ids and names in the same order. */
export function listResult<K extends string, T extends { id: number; name: string }>(
  key: K,
  items: T[],
): { [P in K]: T[] } & ListedIds {
  return {
    [key]: items,
    ids: items.map((item) => item.id),
    names: items.map((item) => item.name),
  } as { [P in K]: T[] } & ListedIds;
}

/** A price bound: a finite number of at least 0. */
export const MaxPriceArg = z
  .number({ error: "expected a number" })
  .check(
    z.refine((n) => Number.isFinite(n) && n >= 0, { error: "must be a number of at least 0" }),
  );

/** Renders the given filter as `{type: "VPS", maxPrice: 10}`, skipping arguments not given. */
export function describeFilter(filter: Readonly<Record<string, unknown>>): string {
  const parts = Object.entries(filter)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${describeInput(value)}`);
  return `{${parts.join(", ")}}`;
}

/** At most this many candidates are listed in an error; the rest are counted. */
const MAX_LISTED = 25;

/** `"a", "b", … and 3 more`. */
export function listCandidates<T>(items: readonly T[], describe: (item: T) => string): string {
  const shown = items.slice(0, MAX_LISTED).map(describe).join(", ");
  const rest = items.length - MAX_LISTED;
  return rest > 0 ? `${shown}, … and ${rest} more` : shown;
}

/** How a singular lookup names and lists what it searched. */
export interface MatchReport<T> {
  /** The data source, e.g. `getPlan`. */
  fn: string;
  /** Singular and plural noun: `["plan", "plans"]`. */
  noun: readonly [string, string];
  /** The filter as the user gave it (rendered with {@link describeFilter}). */
  filter: Readonly<Record<string, unknown>>;
  /** Everything the lookup searched, for the "available" list of a no-match error. */
  all: readonly T[];
  /** One candidate, e.g. `"VPS S" (id 2, VPS, 4.99)`. */
  describe: (item: T) => string;
  /** Extra advice for a no-match error (e.g. a near miss), appended after the list. */
  noMatchHint?: string | undefined;
  /** The name of a candidate: a `name` argument that matches none gets the nearest names. */
  nameOf?: ((item: T) => string) | undefined;
  /** Another way out of an ambiguous match, offered after "narrow the filter". */
  ambiguousHint?: string | undefined;
}

/** Returns the only match or fails with a message listing what was found. */
export function onlyMatch<T>(matches: readonly T[], report: MatchReport<T>): T {
  const [singular, plural] = report.noun;
  const filter = describeFilter(report.filter);
  if (matches.length === 1) return matches[0] as T;
  if (matches.length === 0) {
    const available =
      report.all.length === 0
        ? `the catalogue has no ${plural}`
        : `available ${plural}: ${listCandidates(report.all, report.describe)}`;
    const hint = report.noMatchHint === undefined ? "" : `; ${report.noMatchHint}`;
    const name = report.filter["name"];
    const near =
      report.noMatchHint === undefined && typeof name === "string" && report.nameOf !== undefined
        ? didYouMean(name, report.all.map(report.nameOf), { separator: " (" })
        : "";
    const nearest = near === "" ? "" : `${near})`;
    throw new NoMatchError(
      report.fn,
      `no ${singular} matches ${filter}${nearest}; ${available}${hint}`,
    );
  }
  throw new AmbiguousMatchError(
    report.fn,
    `${matches.length} ${plural} match ${filter}: ${listCandidates(matches, report.describe)}; narrow the filter${report.ambiguousHint === undefined ? "" : ` or ${report.ambiguousHint}`}`,
  );
}

/** Results never carry explicit `undefined`s: the package's one rule (src/lib/defined.ts). */
export { type DefinedOnly, definedOnly } from "../lib/defined";

/** Text the API left empty (`null`, absent or `""`) → `undefined`, so results omit it. */
export function presentText(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === "" ? undefined : value;
}

/** `null`/`undefined` → `undefined`. */
export function orUndefined<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

/**
 * Invoke options of the promise variant, from those of the Output variant: only `signal` matters
 * to the lookup itself.
 */
function plainOptions(opts: DataSourceOutputOptions | undefined): DataSourceOptions | undefined {
  return opts?.signal === undefined ? undefined : { signal: opts.signal };
}

/**
 * Waits until every resource of `dependsOn` exists (custom resources: their id is known;
 * components: their URN), like `dependsOn` of Pulumi's own invokes.
 */
function dependencies(opts: DataSourceOutputOptions | undefined): pulumi.Output<unknown[]> {
  const dependsOn = opts?.dependsOn;
  if (dependsOn === undefined) return pulumi.output([]);
  // pulumi.output() keeps Resources as they are, so the list holds the resources themselves.
  const resolved = pulumi.output(dependsOn) as unknown as pulumi.Output<unknown>;
  return resolved.apply((value) => {
    const list: unknown[] = Array.isArray(value) ? value : [value];
    return pulumi.all(
      list.map((item) => {
        if (pulumi.CustomResource.isInstance(item)) return item.id;
        if (pulumi.Resource.isInstance(item)) return item.urn;
        return pulumi.output(item as pulumi.Input<unknown>);
      }),
    );
  });
}

/**
 * The `...Output` variant of a lookup: waits for the arguments (and `dependsOn`), then runs the
 * lookup. The result depends on the arguments' resources, and stays unknown while they are
 * unknown (preview), in which case no API call is made.
 */
export function outputOf<A, R>(
  args: A,
  opts: DataSourceOutputOptions | undefined,
  lookup: (args: pulumi.Unwrap<A>, opts: DataSourceOptions | undefined) => Promise<R>,
): pulumi.Output<R> {
  const plain = plainOptions(opts);
  return pulumi
    .all([pulumi.output(args), dependencies(opts)])
    .apply(([resolved]) => lookup(resolved as pulumi.Unwrap<A>, plain)) as pulumi.Output<R>;
}
