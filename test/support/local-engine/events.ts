/**
 * The engine event stream of a run, as the CLI writes it with `--event-log FILE` and prints it
 * with `--json` (`up`, `refresh`, `destroy`; a preview only with
 * PULUMI_ENABLE_STREAMING_JSON_PREVIEW set): one `apitype.EngineEvent` per line
 * (`sdk/go/common/apitype/events.go`, `pkg/backend/display/json.go`), each with its `sequence`
 * and `timestamp` (Unix seconds): a `preludeEvent` with the config (secrets blinded), per step a
 * `resourcePreEvent` and then a `resOutputsEvent` (or a `resOpFailedEvent`), the diagnostics, a
 * `summaryEvent` and a `cancelEvent`, which the CLI sends when the run is over. States carry
 * secrets as the CLI's blinding crypter writes them: the secret signature with
 * `"ciphertext": "[secret]"`. Colour directives are left out (as with `--color never`).
 */
import type { Diagnostic, StepRecord } from "./deployment.ts";
import type { ResourceState } from "./state.ts";
import { isSecret, type PropertyMap, SECRET_SIG, SIG, type Value } from "./values.ts";

/** `apitype.StepEventStateMetadata`. */
interface StateMetadata {
  type: string;
  urn: string;
  custom?: true;
  delete?: true;
  id: string;
  parent: string;
  external?: true;
  inputs: PropertyMap;
  outputs: PropertyMap;
  provider: string;
  initErrors?: string[];
}

/** `apitype.StepEventMetadata`. */
interface StepMetadata {
  op: string;
  urn: string;
  type: string;
  old: StateMetadata | null;
  new: StateMetadata | null;
  keys?: string[];
  diffs?: string[];
  /** `apitype.PropertyDiff` by property path: a plugin's detailed diff; null without one. */
  detailedDiff: Record<string, { diffKind: string; inputDiff: boolean }> | null;
  provider: string;
}

/** `apitype.EngineEvent`, the kinds the local engine sends. */
export type EngineEvent = { sequence: number; timestamp: number } & (
  | { preludeEvent: { config: Record<string, string> } }
  | { resourcePreEvent: { metadata: StepMetadata; planning?: true } }
  | { resOutputsEvent: { metadata: StepMetadata; planning?: true } }
  | { resOpFailedEvent: { metadata: StepMetadata; status: number; steps: number } }
  | {
      diagnosticEvent: {
        urn?: string;
        prefix: string;
        message: string;
        color: "never";
        severity: Diagnostic["severity"];
      };
    }
  | {
      summaryEvent: {
        maybeCorrupt: boolean;
        durationSeconds: number;
        resourceChanges: Record<string, number>;
        PolicyPacks: Record<string, string>;
        isPreview: boolean;
        result: "succeeded" | "failed";
      };
    }
  | { cancelEvent: Record<string, never> }
);

/** A value with every secret as the CLI's blinding crypter serializes it. */
function blind(v: Value): Value {
  if (isSecret(v)) return { [SIG]: SECRET_SIG, ciphertext: "[secret]" };
  if (Array.isArray(v)) return v.map(blind);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blind(x)]));
  }
  return v;
}

function blindMap(m: PropertyMap | undefined): PropertyMap {
  return Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, blind(v)]));
}

function stateMetadata(r: ResourceState | undefined): StateMetadata | null {
  if (r === undefined) return null;
  return {
    type: r.type,
    urn: r.urn,
    ...(r.custom ? { custom: true as const } : {}),
    ...(r.delete ? { delete: true as const } : {}),
    id: r.id ?? "",
    parent: r.parent ?? "",
    ...(r.external ? { external: true as const } : {}),
    inputs: blindMap(r.inputs),
    outputs: blindMap(r.outputs),
    provider: r.provider ?? "",
    ...(r.initErrors?.length ? { initErrors: r.initErrors } : {}),
  };
}

/**
 * makeStepEventMetadata of pkg/engine/events.go. `diffed`: the step's diff is known (a refresh
 * step's only after its read, so not in its pre event). A plugin's detailed diff comes with the
 * changed keys (`diffs`); the dynamic provider's Diff names no properties, so as with the CLI its
 * steps carry neither (engine.ts, the digest).
 */
function metadata(
  op: string,
  step: StepRecord,
  old: ResourceState | undefined,
  next: ResourceState | undefined,
  diffed = true,
): StepMetadata {
  const detailed = diffed && step.detailedDiff !== undefined ? step.detailedDiff : undefined;
  return {
    op,
    urn: step.urn,
    type: step.type,
    old: stateMetadata(old),
    new: stateMetadata(next),
    ...(step.replaceReasons.length > 0 ? { keys: step.replaceReasons } : {}),
    ...(detailed ? { diffs: step.diffReasons } : {}),
    detailedDiff: detailed
      ? Object.fromEntries(
          Object.entries(detailed).map(([k, d]) => [
            k,
            { diffKind: d.kind, inputDiff: d.inputDiff },
          ]),
        )
      : null,
    provider: (next ?? old)?.provider ?? "",
  };
}

export interface RunRecord {
  dryRun: boolean;
  config: Record<string, string>;
  secretKeys: readonly string[];
  steps: readonly StepRecord[];
  diagnostics: readonly Diagnostic[];
  summary: Record<string, number>;
  failed: boolean;
  /** Milliseconds since the epoch. */
  started: number;
  durationMs: number;
}

/** The events of a finished run, in the CLI's order for each step. */
export function engineEvents(run: RunRecord): EngineEvent[] {
  const events: EngineEvent[] = [];
  const timestamp = Math.floor((run.started + run.durationMs) / 1000);
  const add = (event: Omit<EngineEvent, "sequence" | "timestamp">) => {
    events.push({ sequence: events.length, timestamp, ...event } as EngineEvent);
  };
  const planning = run.dryRun ? { planning: true as const } : {};
  add({
    preludeEvent: {
      config: Object.fromEntries(
        Object.entries(run.config).map(([k, v]) => [
          k,
          run.secretKeys.includes(k) ? "[secret]" : v,
        ]),
      ),
    },
  });
  for (const step of run.steps) {
    // A refresh step is sent as `refresh`, then what the read found (update, same or delete).
    const preOp = step.refresh === true ? "refresh" : step.op;
    const preNew = step.refresh === true ? step.oldState : step.newState;
    add({
      resourcePreEvent: {
        metadata: metadata(preOp, step, step.oldState, preNew, step.refresh !== true),
        ...planning,
      },
    });
    if (step.error === undefined) {
      const after = metadata(step.op, step, step.oldState, step.newState);
      add({ resOutputsEvent: { metadata: after, ...planning } });
    }
    if (step.error !== undefined) {
      add({
        resOpFailedEvent: {
          metadata: metadata(step.op, step, step.oldState, step.newState),
          status: 0,
          steps: 0,
        },
      });
    }
  }
  for (const d of run.diagnostics) {
    if (d.severity === "debug") continue;
    add({
      diagnosticEvent: {
        ...(d.urn ? { urn: d.urn } : {}),
        prefix: d.severity === "info" ? "" : `${d.severity}: `,
        message: `${d.message}\n`,
        color: "never",
        severity: d.severity,
      },
    });
  }
  add({
    summaryEvent: {
      maybeCorrupt: false,
      durationSeconds: Math.round(run.durationMs / 1000),
      resourceChanges: run.summary,
      PolicyPacks: {},
      isPreview: run.dryRun,
      result: run.failed ? "failed" : "succeeded",
    },
  });
  add({ cancelEvent: {} });
  return events;
}
