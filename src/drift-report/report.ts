/**
 * The drift report: which resource, which field, what the state (or the code) says and what
 * runs, as a Markdown table for a job summary, a pull-request comment or an issue body.
 *
 * Sides: in a refresh the old state is what Pulumi last applied and the new one is what the read
 * found (live); in a preview the new state is what the code asks for and the old one is the
 * state. Fields come from the engine's detailed diff when it gives one, else from the changed
 * properties it names, else from comparing the two states (dynamic providers report no paths).
 *
 * Secrets never show: Pulumi already masks them (`"[secret]"`, or the secret signature object
 * even when it carries `plaintext`), and the report prints `[secret]` for both.
 */
import { isDeepStrictEqual } from "node:util";
import type { PulumiRun, ResourceState, Step } from "./pulumi-json";

/**
 * One side of a differing field, as data (the Markdown and the JSON report both render it):
 * - `value`: the value on that side, secrets already masked (`"[secret]"`);
 * - `absent`: the field is not there;
 * - `list`: the field is a list of `length` items, and `only` are its items the other side lacks
 *   (each as many times as it is missing), in their order;
 * - `exists` / `deleted` / `declared`: the resource as a whole (a row with field `""`);
 * - `changed` / `unsaid`: the engine says the resource changed, the JSON does not say how.
 */
export type Shown =
  | { kind: "value"; value: unknown }
  | { kind: "absent" }
  | { kind: "list"; length: number; only: unknown[] }
  | { kind: "exists"; id?: string }
  | { kind: "deleted" }
  | { kind: "declared" }
  | { kind: "changed" }
  | { kind: "unsaid" };

/** One differing field of one resource. */
export interface FieldRow {
  /** Property path, `rules[0].dport`; `""` for the resource as a whole. */
  field: string;
  /** What the state (refresh) or the code (preview) says. */
  expected: Shown;
  /** What runs (refresh) or what the state says (preview). */
  actual: Shown;
  /** A change of this field replaces the resource. */
  replaces: boolean;
}

/** One changed resource. */
export interface ResourceRow {
  urn: string;
  /** The type's last part: `Server`. */
  type: string;
  /** The resource name (the manifest name, for resources of a manifest). */
  name: string;
  /** The engine's operation: `update`, `delete`, `create`, `replace`, ... */
  op: string;
  fields: FieldRow[];
}

/** What a Pulumi JSON output says changed, ready to render. */
export interface DriftReport {
  kind: "refresh" | "preview";
  /**
   * The plan was made against a refreshed state (`pulumi preview --refresh`): in a preview, the
   * "state" side is what runs.
   */
  refreshed: boolean;
  /** The input was the engine event stream (every field said), not the preview digest. */
  format: PulumiRun["format"];
  stack?: string;
  project?: string;
  /** Resources looked at (the stack, components and providers left out). */
  resources: number;
  /** What the run also had, which the engine counts in its summary and the report does not. */
  alsoCounted: { stack: number; components: number; providers: number };
  /**
   * The engine's own count per operation (`changeSummary`, `resourceChanges`), which includes
   * the stack, components and explicit providers.
   */
  engineSummary: Record<string, number>;
  /** The run changed what it reports (`pulumi up`, or a refresh that was not a preview). */
  applied: boolean;
  rows: ResourceRow[];
  /** Resources the engine counted as changed but the JSON does not say how (see pulumi-json.ts). */
  unexplained: number;
  /**
   * Resources refreshed whose outcome the JSON does not say at all: refresh steps of a preview
   * digest made with `--refresh` (its change counts are the plan's, so they cannot tell).
   */
  undetermined: number;
  errors: string[];
}

const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const BYTES_SIG = "803fd3297a5875dc03ca845dda5d2a98";
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
/** How Pulumi serializes a value not known until the update runs. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SECRET = "[secret]";
/** How the report shows an unknown value. */
export const UNKNOWN_SHOWN = "(known after the update)";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The value as a reader may see it: secrets (both spellings) become `"[secret]"`, byte strings
 * `b"<base64>"`, resource references their URN, output values their value, values unknown before
 * the update `"(known after the update)"`; nothing else changes.
 */
export function displayable(value: unknown): unknown {
  if (value === UNKNOWN) return UNKNOWN_SHOWN;
  if (Array.isArray(value)) return value.map(displayable);
  if (!isObject(value)) return value;
  switch (value[SECRET_SIG_KEY]) {
    case SECRET_SIG:
      return SECRET;
    case BYTES_SIG:
      return `b"${String(value["value"] ?? "")}"`;
    case RESOURCE_SIG:
      return value["urn"];
    case OUTPUT_SIG:
      return value["secret"] === true ? SECRET : displayable(value["value"] ?? UNKNOWN);
    case undefined:
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, displayable(v)]));
    default:
      return `[${String(value[SECRET_SIG_KEY]).slice(0, 8)}]`; // assets and archives
  }
}

type Segment = string | number;

/** Parses a Pulumi property path: `rules[0].dport`, `tags["a.b"]`. */
export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  const pattern = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(Number(match[1]));
    else if (match[2] !== undefined) segments.push(JSON.parse(match[2]) as string);
    else if (match[3] !== undefined) segments.push(match[3]);
  }
  return segments;
}

function formatPropertyPath(segments: readonly Segment[]): string {
  return segments
    .map((s, i) => {
      if (typeof s === "number") return `[${s}]`;
      if (/^[A-Za-z_$][\w$-]*$/.test(s)) return i === 0 ? s : `.${s}`;
      return `[${JSON.stringify(s)}]`;
    })
    .join("");
}

const ABSENT: unique symbol = Symbol("absent");

function valueAt(props: Record<string, unknown>, path: readonly Segment[]): unknown {
  let current: unknown = props;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number" && segment < current.length) {
      current = current[segment];
    } else if (
      isObject(current) &&
      typeof segment === "string" &&
      Object.hasOwn(current, segment)
    ) {
      current = current[segment];
    } else {
      return ABSENT;
    }
  }
  return current;
}

/**
 * Paths at which two property maps differ: into maps always, into lists of equal length. A
 * number and its decimal text are the same value (an id before and after a provider's check).
 */
function differingPaths(a: unknown, b: unknown, prefix: Segment[] = []): Segment[][] {
  if (isDeepStrictEqual(a, b)) return [];
  const scalar = (v: unknown) => typeof v === "number" || typeof v === "string";
  if (scalar(a) && scalar(b) && String(a) === String(b)) return [];
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) =>
      differingPaths(Object.hasOwn(a, k) ? a[k] : ABSENT, Object.hasOwn(b, k) ? b[k] : ABSENT, [
        ...prefix,
        k,
      ]),
    );
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((item, i) => differingPaths(item, b[i], [...prefix, i]));
  }
  return [prefix];
}

/** The serialized dynamic provider is plumbing, never a field a person changed. */
const HIDDEN = new Set(["__provider"]);

/** Canonical text of a value (keys sorted), so equal items of two lists are found by a lookup. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** How many times each item (by its canonical text) is in `items`. */
function tally(items: unknown[]): Map<string, number> {
  const count = new Map<string, number>();
  for (const item of items) {
    const key = canonical(item);
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return count;
}

/** The items of `items` left over once each one `available` holds is matched, in order. */
function unmatched(items: unknown[], available: Map<string, number>): unknown[] {
  const left: unknown[] = [];
  for (const item of items) {
    const key = canonical(item);
    const n = available.get(key) ?? 0;
    if (n > 0) available.set(key, n - 1);
    else left.push(item);
  }
  return left;
}

/** The items of each list the other lacks (as a multiset), in order: linear in the two lengths. */
function listDifference(a: unknown[], b: unknown[]): [unknown[], unknown[]] {
  return [unmatched(a, tally(b)), unmatched(b, tally(a))];
}

/** Both sides of a field: two lists of different lengths as the items each lacks. */
function sidesOf(want: unknown, have: unknown): [Shown, Shown] {
  const side = (v: unknown): Shown =>
    v === ABSENT ? { kind: "absent" } : { kind: "value", value: v };
  if (Array.isArray(want) && Array.isArray(have) && want.length !== have.length) {
    const [onlyWant, onlyHave] = listDifference(want, have);
    return [
      { kind: "list", length: want.length, only: onlyWant },
      { kind: "list", length: have.length, only: onlyHave },
    ];
  }
  return [side(want), side(have)];
}

function fieldsOf(step: Step, kind: DriftReport["kind"]): FieldRow[] {
  const [expected, actual] = kind === "refresh" ? [step.old, step.new] : [step.new, step.old];
  const want: ResourceState = expected ?? { inputs: {}, outputs: {} };
  const have: ResourceState = actual ?? { inputs: {}, outputs: {} };
  const visible = (path: Segment[]) => !HIDDEN.has(String(path[0]));
  const clean = (state: ResourceState, side: "inputs" | "outputs") =>
    displayable(state[side]) as Record<string, unknown>;

  let side: "inputs" | "outputs" = "inputs";
  const reported = step.detailedPaths.length > 0 ? step.detailedPaths : step.diffReasons;
  let paths = reported.map(parsePath).filter(visible);
  if (paths.length === 0) {
    paths = differingPaths(clean(want, "inputs"), clean(have, "inputs")).filter(visible);
  }
  // A refresh that changed only what the service reports (no input) shows in the outputs.
  if (paths.length === 0 && kind === "refresh") {
    side = "outputs";
    paths = differingPaths(clean(want, "outputs"), clean(have, "outputs")).filter(visible);
  }
  const replacing = new Set(step.replaceReasons);
  return paths.map((path) => {
    let from = side;
    // Paths the engine named may be outputs only.
    if (valueAt(want.inputs, path) === ABSENT && valueAt(have.inputs, path) === ABSENT) {
      from = "outputs";
    }
    // The engine's path as it named it: two lists of different lengths show their items.
    const [expectedSide, actualSide] = sidesOf(
      valueAt(clean(want, from), path),
      valueAt(clean(have, from), path),
    );
    return {
      field: formatPropertyPath(path),
      expected: expectedSide,
      actual: actualSide,
      replaces: replacing.has(String(path[0])),
    };
  });
}

/** `urn:pulumi:prod::gitops::cloudinfra:index:Manifest$pulumi-nodejs:dynamic/cloudinfra:Server::web-1`. */
function parseUrn(urn: string): { stack?: string; project?: string; type: string; name: string } {
  const parts = urn.split("::");
  if (parts.length < 4 || !parts[0]?.startsWith("urn:pulumi:")) return { type: "?", name: urn };
  const qualified = parts[2] ?? "";
  const type = qualified.slice(qualified.lastIndexOf("$") + 1);
  return {
    stack: parts[0].slice("urn:pulumi:".length),
    project: parts[1] ?? "",
    type,
    name: parts.slice(3).join("::"),
  };
}

function shortType(type: string): string {
  return type.slice(type.lastIndexOf(":") + 1);
}

const UNCHANGED = new Set(["same", "refresh", "read", "discard", "discard-replaced"]);
const CHANGED_IN_REFRESH = ["update", "delete"];

function existing(state: ResourceState | undefined): Shown {
  return state?.id === undefined ? { kind: "exists" } : { kind: "exists", id: state.id };
}

/** The rows of one changed step, or none for a step that changes nothing. */
function rowOf(step: Step, kind: DriftReport["kind"]): ResourceRow | undefined {
  // The CLI's digest rewrites a refresh step with a provider's detailed diff as `update`
  // (display/json.go); a digest that kept `op: "refresh"` with one still says the read found a
  // change.
  const drifted = step.op === "refresh" && step.detailedPaths.length > 0;
  if (UNCHANGED.has(step.op) && !drifted) return undefined;
  const { type, name } = parseUrn(step.urn);
  const row: ResourceRow = { urn: step.urn, type: shortType(type), name, op: step.op, fields: [] };
  const whole = (expected: Shown, actual: Shown): FieldRow[] => [
    { field: "", expected, actual, replaces: false },
  ];
  if (kind === "refresh" && step.op === "delete") {
    row.fields = whole(existing(step.old), { kind: "deleted" });
  } else if (step.op === "create" || step.op === "create-replacement" || step.op === "import") {
    row.fields = whole({ kind: "declared" }, { kind: "absent" });
  } else if (step.op === "delete" || step.op === "delete-replaced") {
    row.fields = whole({ kind: "absent" }, existing(step.old));
  } else {
    row.fields = fieldsOf(step, kind);
    if (row.fields.length === 0) row.fields = whole({ kind: "changed" }, { kind: "unsaid" });
  }
  return row;
}

/** Reads what changed out of a parsed Pulumi JSON output. */
export function analyse(run: PulumiRun, kind: DriftReport["kind"] = run.kind): DriftReport {
  // A refresh reads the refresh steps, a preview the plan; a run with only one phase is read
  // whole either way.
  const wanted = kind === "refresh" ? "refresh" : "plan";
  const inPhase = run.steps.filter((s) => s.phase === wanted);
  const alsoCounted = { stack: 0, components: 0, providers: 0 };
  const steps = (inPhase.length > 0 ? inPhase : run.steps).filter((s) => {
    const { type } = parseUrn(s.urn);
    if (type === "pulumi:pulumi:Stack") alsoCounted.stack++;
    // A default provider is an internal step: the engine's summary leaves it out (update.go
    // isInternalStep), and so does the report.
    else if (type.startsWith("pulumi:providers:") && parseUrn(s.urn).name.startsWith("default")) {
      return false;
    } else if (type.startsWith("pulumi:providers:")) alsoCounted.providers++;
    else if ((s.new ?? s.old)?.custom === false) alsoCounted.components++;
    else return true;
    return false;
  });
  // `--show-replacement-steps` adds the two halves of a replacement; its `replace` step says it all.
  const replaced = new Set(steps.filter((s) => s.op === "replace").map((s) => s.urn));
  const halves = new Set(["create-replacement", "delete-replaced"]);
  const rows = steps
    .filter((s) => !(halves.has(s.op) && replaced.has(s.urn)))
    .flatMap((s) => rowOf(s, kind) ?? []);
  // The change counts are a pure refresh's only when the run planned nothing after it.
  const countsAreTheRefresh = kind === "refresh" && !run.refreshed;
  const counted = countsAreTheRefresh
    ? CHANGED_IN_REFRESH.reduce((sum, op) => sum + (run.changeSummary[op] ?? 0), 0)
    : 0;
  const undetermined =
    kind === "refresh" && run.refreshed && run.format === "digest"
      ? steps.filter((s) => s.op === "refresh").length
      : 0;
  const report: DriftReport = {
    kind,
    refreshed: run.refreshed,
    format: run.format,
    resources: steps.length,
    alsoCounted,
    engineSummary: run.changeSummary,
    applied: run.applied,
    rows,
    unexplained: Math.max(0, counted - rows.length),
    undetermined,
    errors: run.errors,
  };
  const first = steps[0] ?? run.steps[0];
  if (first !== undefined) {
    const { stack, project } = parseUrn(first.urn);
    if (stack !== undefined) report.stack = stack;
    if (project !== undefined) report.project = project;
  }
  return report;
}

/**
 * What a report concludes: `drift` / `clean` / `unknown` (a refresh whose JSON cannot tell) for
 * a refresh, `changes` / `no-changes` for a preview or an up, `failed` for a run with errors.
 */
export type Verdict = "drift" | "clean" | "unknown" | "changes" | "no-changes" | "failed";

/** Resources the report finds changed: the rows, and those the engine counted but did not say how. */
export function changedResources(report: DriftReport): number {
  return report.rows.length + report.unexplained;
}

export function verdictOf(report: DriftReport): Verdict {
  if (report.errors.length > 0) return "failed";
  if (report.kind === "preview") return report.rows.length > 0 ? "changes" : "no-changes";
  if (changedResources(report) > 0) return "drift";
  return report.undetermined > 0 ? "unknown" : "clean";
}
