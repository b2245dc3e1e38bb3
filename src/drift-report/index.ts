/**
 * `pulumi-cloudinfra/drift-report`: Pulumi's JSON output (`pulumi preview --json`,
 * `pulumi refresh --preview-only --json`) as a Markdown table of what differs. The
 * `cloudinfra-drift-report` command is this, on a file or stdin.
 */
import { renderMarkdown } from "./markdown";
import { parsePulumiJson } from "./pulumi-json";
import { analyse, type DriftReport } from "./report";

export { InputBoundError, MAX_DEPTH, MAX_INPUT_BYTES } from "./bounds";
export {
  JSON_SCHEMA_ID,
  type JsonReport,
  type JsonStack,
  stackFingerprint,
  toJsonReport,
} from "./json";
export {
  codeSpan,
  MARKDOWN_LIMIT,
  type MarkdownOptions,
  renderMarkdown,
  type Section,
} from "./markdown";
export {
  type Decision,
  decide,
  type Marker,
  markerOf,
  type NotifyResult,
  readMarker,
  resolvedBody,
  webhookBody,
} from "./notify";
export { NotPulumiJsonError, type PulumiRun, parsePulumiJson, type Step } from "./pulumi-json";
export {
  analyse,
  changedResources,
  type DriftReport,
  type FieldRow,
  type ResourceRow,
  type Shown,
  type Verdict,
  verdictOf,
} from "./report";

/** Options of {@link driftReport}. */
export interface DriftReportOptions {
  /**
   * Read the steps as a refresh (drift: state against live) or a preview (code against state).
   * Default: a refresh when the JSON contains refresh steps.
   */
  kind?: DriftReport["kind"];
}

/**
 * The Markdown report of a Pulumi JSON output. Throws `NotPulumiJsonError` when `json` is not one.
 *
 * @example
 * const markdown = driftReport(readFileSync("refresh.json", "utf8"));
 */
export function driftReport(json: string, options: DriftReportOptions = {}): string {
  const run = parsePulumiJson(json);
  return renderMarkdown(analyse(run, options.kind ?? run.kind));
}
