/**
 * What a scheduled drift check does with its result, decided here rather than in CI shell: one
 * issue per stack, a comment only when the drift differs from the last report, the issue closed
 * when a run is clean, and a webhook only for drift not seen before.
 *
 * The last report is read back from the issue itself: every report this posts ends with an HTML
 * comment (invisible on GitHub and GitLab) holding the stack's fingerprint and its fields'
 * fingerprints (see json.ts). The decision, for a run that finished:
 *
 * | this run | open issue (a marker in it) | decision | issue | webhook |
 * |---|---|---|---|---|
 * | drift | none | `new` | open one with the report | yes |
 * | drift | same fingerprint | `same` | nothing | no |
 * | drift | other fingerprint | `changed` | comment the report | if a field is new |
 * | clean | one | `resolved` | comment, close | no |
 * | clean | none | `clean` | nothing | no |
 * | failed or unknown | any | `unknown` | nothing (the job fails) | no |
 */
import { fieldFingerprint, stackFingerprint } from "./json";
import { codeSpan } from "./markdown";
import { changedResources, type DriftReport, verdictOf } from "./report";

/** What the marker holds; fields are cut at {@link MAX_MARKER_FIELDS} to keep a comment small. */
export interface Marker {
  fingerprint: string | null;
  fields: string[];
  /** The field list was cut: a field missing from it may still have been reported. */
  cut: boolean;
}

export const MAX_MARKER_FIELDS = 500;
const MARKER_PREFIX = "<!-- cloudinfra-drift-report ";
const MARKER_SUFFIX = " -->";

export type Decision = "new" | "same" | "changed" | "resolved" | "clean" | "unknown";

export interface NotifyResult {
  stack: string;
  decision: Decision;
  /** Open an issue with the body. */
  open: boolean;
  /** Comment the body on the open issue. */
  comment: boolean;
  /** Close the open issue (after the comment). */
  close: boolean;
  /** Post the webhook body. */
  webhook: boolean;
  fingerprint: string | null;
  /** `Type name field` of each field not in the last report. */
  newFields: string[];
}

function fieldsOf(report: DriftReport): { key: string; label: string }[] {
  return report.rows.flatMap((row) =>
    row.fields.map((f) => ({
      key: fieldFingerprint(row, f),
      label: `${row.type} ${row.name}${f.field === "" ? "" : ` ${f.field}`}`,
    })),
  );
}

/** The HTML comment that ends a posted report. */
export function markerOf(report: DriftReport): string {
  const keys = fieldsOf(report).map((f) => f.key);
  const marker = {
    fingerprint: stackFingerprint(report),
    fields: keys.slice(0, MAX_MARKER_FIELDS),
    cut: keys.length > MAX_MARKER_FIELDS,
  };
  return `${MARKER_PREFIX}${JSON.stringify(marker)}${MARKER_SUFFIX}`;
}

/** The last marker in `text` (an issue's body and comments), or undefined when it has none. */
export function readMarker(text: string): Marker | undefined {
  const at = text.lastIndexOf(MARKER_PREFIX);
  if (at === -1) return undefined;
  const end = text.indexOf(MARKER_SUFFIX, at + MARKER_PREFIX.length);
  if (end === -1) return undefined;
  try {
    const value = JSON.parse(text.slice(at + MARKER_PREFIX.length, end)) as Partial<Marker>;
    const fingerprint = typeof value.fingerprint === "string" ? value.fingerprint : null;
    const fields = Array.isArray(value.fields)
      ? value.fields.filter((f): f is string => typeof f === "string")
      : [];
    return { fingerprint, fields, cut: value.cut === true };
  } catch {
    return undefined;
  }
}

/**
 * The decision for `report` (a refresh), given the text of the stack's open issue (`undefined`
 * when none is open). An open issue without a marker counts as an earlier report of unknown drift.
 */
export function decide(report: DriftReport, openIssue: string | undefined): NotifyResult {
  const stack = report.stack ?? "";
  const fingerprint = stackFingerprint(report);
  const verdict = verdictOf(report);
  const none = { open: false, comment: false, close: false, webhook: false };
  const result = (decision: Decision, act: Partial<typeof none>, newFields: string[] = []) => ({
    stack,
    decision,
    ...none,
    ...act,
    fingerprint,
    newFields,
  });
  if (report.kind !== "refresh" || (verdict !== "drift" && verdict !== "clean")) {
    return result("unknown", {});
  }
  if (verdict === "clean") {
    return openIssue === undefined
      ? result("clean", {})
      : result("resolved", { comment: true, close: true });
  }
  const fields = fieldsOf(report);
  if (openIssue === undefined) {
    return result(
      "new",
      { open: true, webhook: true },
      fields.map((f) => f.label),
    );
  }
  const last = readMarker(openIssue);
  if (last !== undefined && last.fingerprint === fingerprint) return result("same", {});
  const seen = new Set(last?.fields ?? []);
  // Without a whole list of the last fields, every field counts as possibly new.
  const fresh = fields.filter((f) => last === undefined || last.cut || !seen.has(f.key));
  return result(
    "changed",
    { comment: true, webhook: fresh.length > 0 },
    fresh.map((f) => f.label),
  );
}

/** Slack's mrkdwn needs only these three escaped; `<` and `>` are what mentions and links use. */
function slackEscape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** How many new fields the webhook names; the rest are counted. */
const WEBHOOK_FIELDS = 10;

/** A Slack-compatible incoming-webhook body (`{"text": ...}`) about new drift. */
export function webhookBody(
  report: DriftReport,
  result: NotifyResult,
  link?: string,
): { text: string } {
  const stack = slackEscape(result.stack || "?");
  const lines = [
    `New drift in stack ${stack}: ${changedResources(report)} of ${report.resources} resources changed outside Pulumi.`,
    ...result.newFields.slice(0, WEBHOOK_FIELDS).map((f) => `• ${slackEscape(f)}`),
    ...(result.newFields.length > WEBHOOK_FIELDS
      ? [`• and ${result.newFields.length - WEBHOOK_FIELDS} more`]
      : []),
  ];
  if (link !== undefined && /^https?:\/\/[^\s|<>]+$/.test(link)) lines.push(`<${link}|The report>`);
  return { text: lines.join("\n") };
}

/** The comment that closes a stack's issue. */
export function resolvedBody(report: DriftReport): string {
  const stack = report.stack === undefined ? "" : ` of stack ${codeSpan(report.stack)}`;
  return `### Drift resolved\n\nA refresh${stack} found every resource matching what runs; closing.\n\n${markerOf(report)}\n`;
}
