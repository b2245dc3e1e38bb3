/**
 * The engine event stream of a run, as the CLI writes it with `--event-log FILE` and prints it
 * with `--json` (`up`, `refresh`, `destroy`; a preview only with
 * PULUMI_ENABLE_STREAMING_JSON_PREVIEW set): one `apitype.EngineEvent` per line
 * (`sdk/go/common/apitype/events.go`, `pkg/backend/display/json.go`), each with its `sequence`
 * and `timestamp` (Unix seconds): a `preludeEvent` with the config (secrets blinded), per step a
 * `resourcePreEvent` when it starts and a `resOutputsEvent` (or a `resOpFailedEvent`) when it ends,
 * each diagnostic as it is reported, a `summaryEvent` and a `cancelEvent`, which the CLI sends
 * when the run is over; each event is stamped when it is sent. States carry
 * secrets as the CLI's blinding crypter writes them: the secret signature with
 * `"ciphertext": "[secret]"`. Colour directives are left out (as with `--color never`).
 */
import type { Diagnostic, StepRecord } from "./deployment.ts";
import type { ResourceState } from "./state.ts";
import { isSecret, type PropertyMap, SECRET_SIG, SIG, type Value } from "./values.ts";

/** `apitype.StepEventStateMetadata`. */
export interface StateMetadata {
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
export interface StepMetadata {
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
        /** The output stream a line came from (a program's or a plugin's stdout or stderr). */
        streamID?: number;
      };
    }
  | { stdoutEvent: { message: string; color: "never" } }
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

/** Where a run's events go as they happen: kept in order, each told to the listener. */
export class EngineEventStream {
  readonly events: EngineEvent[] = [];
  readonly #listener: ((event: EngineEvent) => void) | undefined;
  readonly #dryRun: boolean;
  readonly #debug: boolean;
  /** Steps whose pre event was sent and whose end was not yet. */
  readonly #open = new Set<StepRecord>();
  /** Terminated: what the dying steps report is not sent (only the end of the run is). */
  #stopped = false;

  /**
   * `debug`: send debug diagnostics too (`--debug`); without it they are left out, as the SDK's
   * own debug log holds whole registration answers, secrets among them.
   */
  constructor(dryRun: boolean, debug: boolean, listener?: (event: EngineEvent) => void) {
    this.#dryRun = dryRun;
    this.#debug = debug;
    this.#listener = listener;
  }

  /** Stamped when sent (Unix seconds), as the CLI's event log stamps each event. */
  #add(event: Omit<EngineEvent, "sequence" | "timestamp">): void {
    const stamped = {
      sequence: this.events.length,
      timestamp: Math.floor(Date.now() / 1000),
      ...event,
    } as EngineEvent;
    this.events.push(stamped);
    this.#listener?.(stamped);
  }

  /** The `preludeEvent`: the config, secrets blinded. */
  prelude(config: Record<string, string>, secretKeys: readonly string[]): void {
    this.#add({
      preludeEvent: {
        config: Object.fromEntries(
          Object.entries(config).map(([k, v]) => [k, secretKeys.includes(k) ? "[secret]" : v]),
        ),
      },
    });
  }

  /** A step starts: its `resourcePreEvent` (a refresh step is sent as `refresh`). */
  stepStarted(step: StepRecord): void {
    if (this.#stopped) return;
    this.#open.add(step);
    const preOp = step.refresh === true ? "refresh" : step.op;
    const preNew = step.refresh === true ? step.oldState : (step.newState ?? step.goal);
    this.#add({
      resourcePreEvent: {
        metadata: metadata(preOp, step, step.oldState, preNew, step.refresh !== true),
        ...(this.#dryRun ? { planning: true as const } : {}),
      },
    });
  }

  /** A step ends: its `resOutputsEvent`, or its `resOpFailedEvent` when it failed. */
  stepEnded(step: StepRecord): void {
    if (this.#stopped || !this.#open.delete(step)) return;
    const meta = metadata(step.op, step, step.oldState, step.newState);
    if (step.error === undefined) {
      this.#add({
        resOutputsEvent: { metadata: meta, ...(this.#dryRun ? { planning: true as const } : {}) },
      });
    } else {
      this.#add({ resOpFailedEvent: { metadata: meta, status: 0, steps: 0 } });
    }
  }

  /**
   * A component's outputs once registered (the stack's, when the run finalizes them): another
   * `resOutputsEvent` of its step, as the step executor sends for RegisterResourceOutputs.
   */
  stepOutputs(step: StepRecord): void {
    if (this.#stopped) return;
    const meta = metadata(step.op, step, step.oldState, step.newState);
    this.#add({
      resOutputsEvent: { metadata: meta, ...(this.#dryRun ? { planning: true as const } : {}) },
    });
  }

  /** A diagnostic, as the engine's event sink sends it (`StringifyDiag`: a prefix but for info). */
  diagnostic(d: Diagnostic): void {
    if (this.#stopped || (d.severity === "debug" && !this.#debug)) return;
    const info = d.severity === "info" || d.severity === "info#err";
    this.#add({
      diagnosticEvent: {
        ...(d.urn ? { urn: d.urn } : {}),
        prefix: info ? "" : `${d.severity}: `,
        message: `${d.message}\n`,
        color: "never",
        severity: d.severity,
        ...(d.streamID !== undefined ? { streamID: d.streamID } : {}),
      },
    });
  }

  /**
   * The run is terminated (a second Ctrl-C): from now on only its end is sent, so the steps in
   * flight stay unfinished in the events, as with the CLI, which stops listening.
   */
  stop(): void {
    this.#stopped = true;
  }

  /** A message of the CLI itself (the `^C received` notice): a `stdoutEvent`. */
  stdout(message: string): void {
    this.#add({ stdoutEvent: { message, color: "never" } });
  }

  /** The end: the `summaryEvent`, then the `cancelEvent` the CLI sends when the run is over. */
  end(summary: { summary: Record<string, number>; failed: boolean; durationMs: number }): void {
    this.#add({
      summaryEvent: {
        maybeCorrupt: false,
        durationSeconds: Math.round(summary.durationMs / 1000),
        resourceChanges: summary.summary,
        PolicyPacks: {},
        isPreview: this.#dryRun,
        result: summary.failed ? "failed" : "succeeded",
      },
    });
    this.#add({ cancelEvent: {} });
  }
}
