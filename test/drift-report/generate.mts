/**
 * Engine event streams of a refresh, made up for tests: `resources` Tag resources, of which the
 * first `drifted` changed colour outside Pulumi, with optional live values (an attacker's text).
 */
export const STACK = "prod";
export const tagUrn = (name: string, stack = STACK) =>
  `urn:pulumi:${stack}::gitops::cloudinfra:index:Manifest$pulumi-nodejs:dynamic/cloudinfra:Tag::${name}`;

export interface GeneratedRun {
  resources: number;
  drifted?: number;
  stack?: string;
  /** The live value of the first drifted resource's `data`. */
  liveData?: unknown;
  /** `false`: the log of a refresh that was applied (not a preview). */
  isPreview?: boolean;
}

export function refreshStream(run: GeneratedRun): string {
  const { resources, drifted = 0, stack = STACK } = run;
  const lines: string[] = [];
  let sequence = 0;
  const push = (event: Record<string, unknown>) =>
    lines.push(JSON.stringify({ sequence: sequence++, timestamp: 1, ...event }));
  const state = (urn: string, props: Record<string, unknown>) => ({
    type: "pulumi-nodejs:dynamic/cloudinfra:Tag",
    urn,
    custom: true,
    id: String(sequence),
    inputs: props,
    outputs: props,
  });
  push({ preludeEvent: { config: {} } });
  for (let i = 0; i < resources; i++) {
    const urn = tagUrn(`tag-${i}`, stack);
    const old = { color: "#000000", data: "x" };
    const changed = i < drifted;
    const live = changed
      ? { color: "#ff0000", data: i === 0 && run.liveData !== undefined ? run.liveData : "x" }
      : old;
    const metadata = { op: "refresh", urn, type: "t", old: state(urn, old), new: state(urn, old) };
    push({ resourcePreEvent: { metadata, planning: true } });
    push({
      resOutputsEvent: {
        metadata: { ...metadata, op: changed ? "update" : "same", new: state(urn, live) },
        planning: true,
      },
    });
  }
  const resourceChanges: Record<string, number> = {};
  if (drifted > 0) resourceChanges["update"] = drifted;
  if (resources > drifted) resourceChanges["same"] = resources - drifted;
  push({
    summaryEvent: { resourceChanges, isPreview: run.isPreview ?? true, result: "succeeded" },
  });
  push({ cancelEvent: {} });
  return `${lines.join("\n")}\n`;
}

/** A preview digest whose one step's `inputs.data` is `depth` arrays deep. */
export function deepDigest(depth: number): string {
  const urn = tagUrn("deep");
  return `{"steps":[{"op":"update","urn":"${urn}","oldState":{"urn":"${urn}","custom":true,"inputs":{"data":${"[".repeat(depth)}${"]".repeat(depth)}}},"newState":{"urn":"${urn}","custom":true,"inputs":{"data":1}}}],"duration":1,"changeSummary":{"update":1}}`;
}
