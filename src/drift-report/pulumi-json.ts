/**
 * What `pulumi preview --json` and `pulumi refresh --preview-only --json` print, read into one
 * shape. Two formats exist (pulumi/pulumi, pkg/backend/display):
 *
 * - the **preview digest** (`ShowPreviewDigest`, the default): one JSON document
 *   `{config, steps[], diagnostics[], duration, changeSummary}`; each step
 *   `{op, urn, provider, oldState, newState, diffReasons, replaceReasons, detailedDiff}`, states
 *   as `apitype.ResourceV3` with secrets replaced by the string `"[secret]"`;
 * - the **engine event stream** (`ShowJSONEvents`, with `PULUMI_ENABLE_STREAMING_JSON_PREVIEW`
 *   set): one `apitype.EngineEvent` per line; `resourcePreEvent` / `resOutputsEvent` carry
 *   `metadata {op, urn, type, old, new, keys, diffs, detailedDiff}`, states with `inputs` and
 *   `outputs` whose secrets are the secret signature object
 *   `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "ciphertext": ...}`.
 *
 * Why both: in a refresh, the digest only rewrites a step with what the read found when the
 * provider returned a detailed diff (`json.go`, `ResourceOutputsEvent`), and dynamic providers
 * (every resource of this package) return none. For them only the event stream says which
 * fields drifted; the digest says only how many resources did (`changeSummary`).
 *
 * Only a whole run is read: a digest is written once the engine's summary arrived, so it has a
 * `duration` and, unless the run failed before its first step, `steps` (the root stack's step is
 * always shown); an event stream starts with a `preludeEvent` and has a `summaryEvent`, every
 * line an `EngineEvent` with its `sequence` and `timestamp`. Anything else (`{}`, `[]`, an error
 * object, nothing, a stream cut short) is refused, saying what it is: a drift gate must never
 * read "no changes" into a run that did not finish.
 *
 * `pulumi preview --refresh` holds two phases: the refresh steps (state against live) and then
 * the plan (code against the refreshed state). Each step says which phase it belongs to.
 */
import { z } from "zod";
import { checkInputSize, InputBoundError, lineAt, NotPulumiJsonError, scanJson } from "./bounds";

export { NotPulumiJsonError };

/** The state of a resource before or after a step. */
export interface ResourceState {
  id?: string;
  type?: string;
  /** `false` for a component resource (which a refresh does not read). */
  custom?: boolean;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** One step the engine took or would take. */
export interface Step {
  op: string;
  urn: string;
  old?: ResourceState;
  new?: ResourceState;
  /** Top-level properties that differ, as the provider reported them (often empty). */
  diffReasons: string[];
  /** Properties that force a replacement. */
  replaceReasons: string[];
  /** Property paths (`rules[0].dport`) the provider or engine reported; often absent. */
  detailedPaths: string[];
  /** `refresh`: a read of what runs (state against live); `plan`: code against the state. */
  phase: "refresh" | "plan";
}

/** A Pulumi JSON output, whichever format it came in. */
export interface PulumiRun {
  format: "digest" | "events";
  /**
   * `refresh` when the run only refreshed (drift), else `preview` (planned changes, after a
   * refresh when {@link refreshed}).
   */
  kind: "refresh" | "preview";
  /** The run has refresh steps and a plan: `pulumi preview --refresh` (or `up --refresh`). */
  refreshed: boolean;
  steps: Step[];
  /** Resource count per operation, as the engine summed it (`update`, `create`, `same`, ...). */
  changeSummary: Record<string, number>;
  /** Error diagnostics, without colour codes; a failed or cancelled run has at least one. */
  errors: string[];
  /**
   * The run changed things (`pulumi up` or `pulumi refresh` without `--preview-only`, whose event
   * log says `isPreview: false`): its steps are what was done, not what would be.
   */
  applied: boolean;
}

const Props = z.record(z.string(), z.unknown()).nullish();
const DetailedDiff = z
  .record(z.string(), z.object({ kind: z.string().optional(), diffKind: z.string().optional() }))
  .nullish();

/** A resource state: `apitype.ResourceV3` in the digest, `StepEventStateMetadata` in events. */
const StateSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  custom: z.boolean().optional(),
  inputs: Props,
  outputs: Props,
});
const DigestSchema = z.looseObject({
  steps: z
    .array(
      z.looseObject({
        op: z.string(),
        urn: z.string(),
        oldState: StateSchema.nullish(),
        newState: StateSchema.nullish(),
        diffReasons: z.array(z.string()).nullish(),
        replaceReasons: z.array(z.string()).nullish(),
        detailedDiff: DetailedDiff,
      }),
    )
    .nullish(),
  diagnostics: z
    .array(z.looseObject({ message: z.string().optional(), severity: z.string().optional() }))
    .nullish(),
  changeSummary: z.record(z.string(), z.number()).nullish(),
  duration: z.number().nullish(),
});

const StepMetadata = z.looseObject({
  op: z.string(),
  urn: z.string(),
  old: StateSchema.nullish(),
  new: StateSchema.nullish(),
  keys: z.array(z.string()).nullish(),
  diffs: z.array(z.string()).nullish(),
  detailedDiff: DetailedDiff,
});
const EventSchema = z.looseObject({
  sequence: z.number(),
  timestamp: z.number(),
  preludeEvent: z.looseObject({ config: z.record(z.string(), z.string()).nullish() }).optional(),
  cancelEvent: z.looseObject({}).optional(),
  resourcePreEvent: z.looseObject({ metadata: StepMetadata }).optional(),
  resOutputsEvent: z.looseObject({ metadata: StepMetadata }).optional(),
  diagnosticEvent: z
    .looseObject({ message: z.string(), severity: z.string().optional() })
    .optional(),
  summaryEvent: z
    .looseObject({
      resourceChanges: z.record(z.string(), z.number()).nullish(),
      result: z.string().optional(),
      isPreview: z.boolean().optional(),
    })
    .optional(),
});

type RawState = z.infer<typeof StateSchema> | null | undefined;

/** `omitsCustom`: the event stream leaves `custom` out when false (`omitempty`), the digest never. */
function stateOf(raw: RawState, omitsCustom: boolean): ResourceState | undefined {
  if (raw === null || raw === undefined) return undefined;
  const state: ResourceState = { inputs: raw.inputs ?? {}, outputs: raw.outputs ?? {} };
  if (raw.id !== undefined && raw.id !== "") state.id = raw.id;
  if (raw.type !== undefined) state.type = raw.type;
  const custom = raw.custom ?? (omitsCustom ? false : undefined);
  if (custom !== undefined) state.custom = custom;
  return state;
}

function stepOf(raw: {
  op: string;
  urn: string;
  old: RawState;
  new: RawState;
  diffs: string[] | null | undefined;
  keys: string[] | null | undefined;
  detailedDiff: z.infer<typeof DetailedDiff>;
  phase: Step["phase"];
  omitsCustom: boolean;
}): Step {
  const step: Step = {
    op: raw.op,
    urn: raw.urn,
    phase: raw.phase,
    diffReasons: raw.diffs ?? [],
    replaceReasons: raw.keys ?? [],
    detailedPaths: Object.keys(raw.detailedDiff ?? {}),
  };
  const old = stateOf(raw.old, raw.omitsCustom);
  const next = stateOf(raw.new, raw.omitsCustom);
  if (old !== undefined) step.old = old;
  if (next !== undefined) step.new = next;
  return step;
}

// Diagnostics keep the CLI's colour directives (`<{%reset%}>`) in the event stream.
const stripColour = (text: string) => text.replace(/<\{%[^%]*%\}>/g, "").trim();

const isRootStack = (urn: string) => urn.split("::")[2] === "pulumi:pulumi:Stack";

/**
 * A run only refreshed when it has refresh steps and no plan step that changes something: a
 * `preview --refresh` that plans nothing reads the same as a refresh, and means the same.
 */
function kindOf(steps: Step[]): { kind: PulumiRun["kind"]; refreshed: boolean } {
  const refreshes = steps.some((s) => s.phase === "refresh");
  const plans = steps.some((s) => s.phase === "plan" && s.op !== "same" && !isRootStack(s.urn));
  return { kind: refreshes && !plans ? "refresh" : "preview", refreshed: refreshes && plans };
}

/** Ops a refresh step can end as in the digest: `refresh`, or rewritten by the read. */
const REFRESH_OPS = new Set(["refresh", "update", "delete"]);

function fromDigest(digest: z.infer<typeof DigestSchema>): PulumiRun {
  const raw = digest.steps ?? [];
  const hasRefresh = raw.some((s) => s.op === "refresh");
  const seen = new Set<string>();
  const steps = raw.map((s) => {
    // A refresh comes first: a resource's first step is its refresh when the run refreshed and
    // the op is one a refresh step has; refreshes read custom resources only.
    const custom = (s.oldState ?? s.newState)?.custom !== false;
    const phase =
      s.op === "refresh" || (hasRefresh && !seen.has(s.urn) && REFRESH_OPS.has(s.op) && custom)
        ? "refresh"
        : "plan";
    seen.add(s.urn);
    return stepOf({
      op: s.op,
      urn: s.urn,
      old: s.oldState,
      new: s.newState,
      diffs: s.diffReasons,
      keys: s.replaceReasons,
      detailedDiff: s.detailedDiff,
      phase,
      omitsCustom: false,
    });
  });
  return {
    format: "digest",
    ...kindOf(steps),
    steps,
    changeSummary: digest.changeSummary ?? {},
    // The CLI prints a digest for previews only.
    applied: false,
    errors: (digest.diagnostics ?? [])
      .filter((d) => d.severity === "error" && d.message !== undefined)
      .map((d) => stripColour(d.message ?? "")),
  };
}

function fromEvents(events: z.infer<typeof EventSchema>[]): PulumiRun {
  // The last word on a resource in each phase is its outputs event (after a refresh's read);
  // before that, its pre event. Order of first appearance is kept.
  const byKey = new Map<string, Step>();
  const phaseOf = new Map<string, Step["phase"]>();
  let changeSummary: Record<string, number> = {};
  let applied = false;
  const errors: string[] = [];
  for (const event of events) {
    const pre = event.resourcePreEvent?.metadata;
    const post = event.resOutputsEvent?.metadata;
    for (const meta of [pre, post]) {
      if (meta === undefined) continue;
      if (meta === pre) phaseOf.set(meta.urn, meta.op === "refresh" ? "refresh" : "plan");
      const phase = phaseOf.get(meta.urn) ?? "plan";
      byKey.set(
        `${phase} ${meta.urn}`,
        stepOf({
          op: meta.op,
          urn: meta.urn,
          old: meta.old,
          new: meta.new,
          diffs: meta.diffs,
          keys: meta.keys,
          detailedDiff: meta.detailedDiff,
          phase,
          omitsCustom: true,
        }),
      );
    }
    if (event.diagnosticEvent?.severity === "error") {
      errors.push(stripColour(event.diagnosticEvent.message));
    }
    if (event.summaryEvent !== undefined) {
      changeSummary = event.summaryEvent.resourceChanges ?? {};
      applied = event.summaryEvent.isPreview === false;
      const result = event.summaryEvent.result;
      if ((result === "failed" || result === "canceled") && errors.length === 0) {
        errors.push(`the run ${result === "failed" ? "failed" : "was cancelled"}`);
      }
    }
  }
  const steps = [...byKey.values()];
  return { format: "events", ...kindOf(steps), steps, changeSummary, errors, applied };
}

const EXPECTED =
  "expected the whole output of `pulumi preview --json`, `pulumi refresh --preview-only --json` (a preview digest) or an engine event stream (`--event-log FILE`, or `--json` with PULUMI_ENABLE_STREAMING_JSON_PREVIEW set)";

/** What a JSON value is, in a few words, for an error message. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "an empty JSON array" : "a JSON array";
  if (value === null || typeof value !== "object") return `the JSON ${typeof value}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return "an empty JSON object";
  const shown = keys.slice(0, 5).join(", ") + (keys.length > 5 ? ", ..." : "");
  const error =
    (value as Record<string, unknown>)["error"] ?? (value as Record<string, unknown>)["message"];
  const said = typeof error === "string" ? ` saying ${JSON.stringify(error.slice(0, 200))}` : "";
  return `a JSON object with ${keys.length === 1 ? "key" : "keys"} ${shown}${said}`;
}

function fail(got: string, why: string): never {
  throw new NotPulumiJsonError(`got ${got}: ${why}; ${EXPECTED}`);
}

function readDigest(whole: unknown): PulumiRun {
  if (whole === null || typeof whole !== "object" || Array.isArray(whole)) {
    fail(describe(whole), "not a preview digest");
  }
  const digest = DigestSchema.safeParse(whole);
  if (!digest.success) {
    const issue = digest.error.issues[0];
    fail(
      describe(whole),
      `not a preview digest (${issue?.path.join(".") || "value"}: ${issue?.message})`,
    );
  }
  const run = fromDigest(digest.data);
  // The digest is printed when the engine's summary arrived (`duration`); a run that failed
  // before its first step has no steps but says why in its diagnostics.
  if (typeof digest.data.duration !== "number") {
    fail(
      describe(whole),
      "no `duration`, so not a whole run (the digest ends with the run's summary)",
    );
  }
  if (run.steps.length === 0 && run.errors.length === 0) {
    fail(describe(whole), "no `steps` and no error (every run shows at least its stack)");
  }
  return run;
}

function readEvents(text: string): PulumiRun {
  const events: z.infer<typeof EventSchema>[] = [];
  const lines = text.split("\n");
  let summaryLine = 0;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = lines.slice(index + 1).every((l) => l.trim() === "");
      throw new NotPulumiJsonError(
        `line ${index + 1} is not JSON${last && index > 0 ? " (a run cut short?)" : ""}; ${EXPECTED}`,
      );
    }
    const event = EventSchema.safeParse(value);
    if (!event.success) {
      throw new NotPulumiJsonError(
        `line ${index + 1} is not a Pulumi engine event (got ${describe(value)}); ${EXPECTED}`,
      );
    }
    // Two runs in one file (logs appended to, or concatenated) would let the later verdict
    // silently win: after the summary, only the CLI's closing `cancelEvent` may follow.
    if (summaryLine > 0 && event.data.cancelEvent === undefined) {
      const what =
        event.data.preludeEvent !== undefined ? "a second run starts" : "an event follows the run";
      throw new InputBoundError(
        `line ${index + 1}: ${what} after the run's \`summaryEvent\` on line ${summaryLine}; give one run per file (several files make one report with a section each)`,
      );
    }
    if (event.data.summaryEvent !== undefined) summaryLine = index + 1;
    events.push(event.data);
  }
  const got = `${events.length} engine ${events.length === 1 ? "event" : "events"}`;
  if (events[0]?.preludeEvent === undefined) {
    fail(got, "the first is not a `preludeEvent`, so the stream is not a whole run");
  }
  if (!events.some((e) => e.summaryEvent !== undefined)) {
    const last = events[events.length - 1];
    fail(
      got,
      `no \`summaryEvent\`: the run did not finish (cut short after sequence ${last?.sequence})`,
    );
  }
  return fromEvents(events);
}

/** Reads either format; fails with {@link NotPulumiJsonError} saying what it got instead. */
export function parsePulumiJson(text: string): PulumiRun {
  checkInputSize(text.length, "the input");
  const trimmed = text.trim();
  if (trimmed === "") fail("empty input", "nothing to read (did the command fail?)");
  const { firstEnd } = scanJson(trimmed);
  let whole: unknown;
  try {
    // More after the first value: not one document (and no need to parse it all to know).
    if (firstEnd > 0 && firstEnd < trimmed.length) throw new SyntaxError("more than one value");
    whole = JSON.parse(trimmed);
  } catch {
    // A digest (one document) followed by more: refuse rather than read either half.
    if (firstEnd > 0 && trimmed.startsWith("{")) {
      let first: unknown;
      try {
        first = JSON.parse(trimmed.slice(0, firstEnd));
      } catch {
        return readEvents(trimmed);
      }
      const isEvent = first !== null && typeof first === "object" && "sequence" in first;
      if (!isEvent) {
        const next = trimmed.length - trimmed.slice(firstEnd).trimStart().length;
        throw new InputBoundError(
          `line ${lineAt(trimmed, next)}: more follows the JSON document that ends on line ${lineAt(trimmed, firstEnd - 1)} (two runs in one file?); give one run per file (several files make one report with a section each)`,
        );
      }
    }
    return readEvents(trimmed);
  }
  const oneEvent =
    whole !== null && typeof whole === "object" && !Array.isArray(whole) && "sequence" in whole;
  return oneEvent ? readEvents(trimmed) : readDigest(whole);
}
