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
 */
import { z } from "zod";

/** The state of a resource before or after a step. */
export interface ResourceState {
  id?: string;
  type?: string;
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
}

/** A Pulumi JSON output, whichever format it came in. */
export interface PulumiRun {
  format: "digest" | "events";
  /** `refresh` when the steps are refresh steps (drift), else `preview` (planned changes). */
  kind: "refresh" | "preview";
  steps: Step[];
  /** Resource count per operation, as the engine summed it (`update`, `create`, `same`, ...). */
  changeSummary: Record<string, number>;
  /** Error diagnostics, without colour codes. */
  errors: string[];
}

const Props = z.record(z.string(), z.unknown()).nullish();
const DetailedDiff = z
  .record(z.string(), z.object({ kind: z.string().optional(), diffKind: z.string().optional() }))
  .nullish();

/** A resource state: `apitype.ResourceV3` in the digest, `StepEventStateMetadata` in events. */
const StateSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
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
  resourcePreEvent: z.looseObject({ metadata: StepMetadata }).optional(),
  resOutputsEvent: z.looseObject({ metadata: StepMetadata }).optional(),
  diagnosticEvent: z
    .looseObject({ message: z.string(), severity: z.string().optional() })
    .optional(),
  summaryEvent: z
    .looseObject({ resourceChanges: z.record(z.string(), z.number()).nullish() })
    .optional(),
});

type RawState = z.infer<typeof StateSchema> | null | undefined;

function stateOf(raw: RawState): ResourceState | undefined {
  if (raw === null || raw === undefined) return undefined;
  const state: ResourceState = { inputs: raw.inputs ?? {}, outputs: raw.outputs ?? {} };
  if (raw.id !== undefined && raw.id !== "") state.id = raw.id;
  if (raw.type !== undefined) state.type = raw.type;
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
}): Step {
  const step: Step = {
    op: raw.op,
    urn: raw.urn,
    diffReasons: raw.diffs ?? [],
    replaceReasons: raw.keys ?? [],
    detailedPaths: Object.keys(raw.detailedDiff ?? {}),
  };
  const old = stateOf(raw.old);
  const next = stateOf(raw.new);
  if (old !== undefined) step.old = old;
  if (next !== undefined) step.new = next;
  return step;
}

// Diagnostics keep the CLI's colour directives (`<{%reset%}>`) in the event stream.
const stripColour = (text: string) => text.replace(/<\{%[^%]*%\}>/g, "").trim();

/** Refresh steps are `refresh` before the read; a run with any of them is a refresh. */
function kindOf(ops: string[]): "refresh" | "preview" {
  return ops.includes("refresh") ? "refresh" : "preview";
}

function fromDigest(digest: z.infer<typeof DigestSchema>): PulumiRun {
  const steps = (digest.steps ?? []).map((s) =>
    stepOf({
      op: s.op,
      urn: s.urn,
      old: s.oldState,
      new: s.newState,
      diffs: s.diffReasons,
      keys: s.replaceReasons,
      detailedDiff: s.detailedDiff,
    }),
  );
  return {
    format: "digest",
    kind: kindOf(steps.map((s) => s.op)),
    steps,
    changeSummary: digest.changeSummary ?? {},
    errors: (digest.diagnostics ?? [])
      .filter((d) => d.severity === "error" && d.message !== undefined)
      .map((d) => stripColour(d.message ?? "")),
  };
}

function fromEvents(events: z.infer<typeof EventSchema>[]): PulumiRun {
  // The last word on a resource is its outputs event (after a refresh's read); before that, its
  // pre event. Order of first appearance is kept.
  const byUrn = new Map<string, Step>();
  const preOps: string[] = [];
  let changeSummary: Record<string, number> = {};
  const errors: string[] = [];
  for (const event of events) {
    const pre = event.resourcePreEvent?.metadata;
    const post = event.resOutputsEvent?.metadata;
    for (const meta of [pre, post]) {
      if (meta === undefined) continue;
      if (meta === pre) preOps.push(meta.op);
      byUrn.set(
        meta.urn,
        stepOf({
          op: meta.op,
          urn: meta.urn,
          old: meta.old,
          new: meta.new,
          diffs: meta.diffs,
          keys: meta.keys,
          detailedDiff: meta.detailedDiff,
        }),
      );
    }
    if (event.diagnosticEvent?.severity === "error") {
      errors.push(stripColour(event.diagnosticEvent.message));
    }
    if (event.summaryEvent !== undefined) changeSummary = event.summaryEvent.resourceChanges ?? {};
  }
  return {
    format: "events",
    kind: kindOf(preOps),
    steps: [...byUrn.values()],
    changeSummary,
    errors,
  };
}

/** The input is neither a preview digest nor an engine event stream. */
export class NotPulumiJsonError extends Error {
  static {
    Object.defineProperty(NotPulumiJsonError.prototype, "name", {
      value: "NotPulumiJsonError",
      writable: true,
      configurable: true,
    });
  }
}

const EXPECTED =
  "expected the output of `pulumi preview --json` or `pulumi refresh --preview-only --json` (a preview digest, or one engine event per line with PULUMI_ENABLE_STREAMING_JSON_PREVIEW set)";

/** Reads either format; fails with {@link NotPulumiJsonError} naming what was expected. */
export function parsePulumiJson(text: string): PulumiRun {
  const trimmed = text.trim();
  if (trimmed === "") throw new NotPulumiJsonError(`the input is empty; ${EXPECTED}`);
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    whole = undefined;
  }
  if (whole !== undefined) {
    const digest = DigestSchema.safeParse(whole);
    const looksLikeDigest =
      whole !== null &&
      typeof whole === "object" &&
      !Array.isArray(whole) &&
      !("sequence" in whole);
    if (digest.success && looksLikeDigest) return fromDigest(digest.data);
    if (!("sequence" in (whole as object))) {
      throw new NotPulumiJsonError(`the JSON is not a preview digest; ${EXPECTED}`);
    }
  }
  const events: z.infer<typeof EventSchema>[] = [];
  for (const [index, line] of trimmed.split("\n").entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new NotPulumiJsonError(`line ${index + 1} is not JSON; ${EXPECTED}`);
    }
    const event = EventSchema.safeParse(value);
    if (!event.success) {
      throw new NotPulumiJsonError(`line ${index + 1} is not a Pulumi engine event; ${EXPECTED}`);
    }
    events.push(event.data);
  }
  return fromEvents(events);
}
