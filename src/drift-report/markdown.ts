/**
 * The drift report as Markdown, for a job summary, a pull-request comment or an issue: a heading,
 * a table of every differing field, and what to do.
 *
 * Every value from a run (live values, names, ids, errors) is text an attacker may have written,
 * so each goes in a code span whose fence is longer than any run of backticks in it (CommonMark:
 * a span closes only on a run of the same length), padded with a space when it starts or ends
 * with a backtick, its pipes escaped and its line breaks shown as `\n`, so it stays one table
 * cell of text: no mention, link, image or HTML renders from it.
 *
 * The whole text is capped at {@link MARKDOWN_LIMIT} characters, under GitHub's 65,536 for a
 * comment or issue body (a job summary takes 1 MiB): rows past the cap are left out, and a line
 * says how many and where the whole report is (the JSON report).
 */
import {
  changedResources,
  type DriftReport,
  type FieldRow,
  type ResourceRow,
  type Shown,
  UNKNOWN_SHOWN,
  verdictOf,
} from "./report";

/** The most characters a Markdown report has, whatever the run (a comment takes 65,536). */
export const MARKDOWN_LIMIT = 60_000;
/** The most characters of one value shown; longer ones show the part around the first difference. */
const MAX_SHOWN = 80;
/** The most characters of one list item shown. */
const MAX_ITEM = 200;
/** The most errors listed, and characters of each. */
const MAX_ERRORS = 20;
const MAX_ERROR = 1000;
/** The most items of one list shown in a cell. */
const MAX_ITEMS = 10;

/** `text` as a code span that no content can close early, safe in a table cell. */
export function codeSpan(text: string): string {
  const safe = text.replaceAll("\r", "\\r").replaceAll("\n", "\\n").replaceAll("|", "\\|");
  let longest = 0;
  let run = 0;
  for (const c of safe) {
    run = c === "`" ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = "`".repeat(longest + 1);
  const pad = safe.startsWith("`") || safe.endsWith("`") || /^ .*[^ ].* $/.test(safe) ? " " : "";
  return `${fence}${pad}${safe}${pad}${fence}`;
}

/** A value as text: a plain string as it is, anything else (or a string that would read wrongly) as JSON. */
function textOf(value: unknown): string {
  return typeof value === "string" && /^[^\s"`|][^\n\r\t]*$/.test(value) && !/\s$/.test(value)
    ? value
    : (JSON.stringify(value) ?? String(value));
}

function valueCell(value: unknown, text: string): string {
  return value === UNKNOWN_SHOWN ? `*${UNKNOWN_SHOWN.slice(1, -1)}*` : codeSpan(text);
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The parts of two texts around their first difference, each at most {@link MAX_SHOWN} long. */
function around(a: string, b: string): [string, string] {
  if (a.length <= MAX_SHOWN && b.length <= MAX_SHOWN) return [a, b];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const start = Math.max(0, i - 24);
  const cut = (t: string) => {
    if (start === 0) return shorten(t, MAX_SHOWN);
    const body = t.slice(start, start + MAX_SHOWN - 2);
    return `…${body}${start + MAX_SHOWN - 2 < t.length ? "…" : ""}`;
  };
  return [cut(a), cut(b)];
}

function listCell(side: Extract<Shown, { kind: "list" }>): string {
  const head = `${side.length} ${side.length === 1 ? "item" : "items"}`;
  if (side.only.length === 0) return head;
  const shown = side.only
    .slice(0, MAX_ITEMS)
    .map((item) => valueCell(item, shorten(textOf(item), MAX_ITEM)));
  const more = side.only.length > MAX_ITEMS ? `, and ${side.only.length - MAX_ITEMS} more` : "";
  return `${head}, ${side.only.length} only here: ${shown.join(", ")}${more}`;
}

function wholeCell(side: Shown): string {
  switch (side.kind) {
    case "absent":
      return "*absent*";
    case "exists":
      return side.id === undefined ? "exists" : `exists (id ${codeSpan(side.id)})`;
    case "deleted":
      return "*deleted outside Pulumi*";
    case "declared":
      return "*declared*";
    case "changed":
      return "*changed*";
    case "unsaid":
      return "*the JSON does not say how*";
    case "list":
      return listCell(side);
    case "value":
      return valueCell(side.value, shorten(textOf(side.value), MAX_SHOWN));
  }
}

/** The two cells of a field; never the same text for a field that differs. */
export function cells(field: FieldRow): [string, string] {
  const { expected, actual } = field;
  let pair: [string, string];
  if (expected.kind === "value" && actual.kind === "value") {
    const [a, b] = around(textOf(expected.value), textOf(actual.value));
    pair = [valueCell(expected.value, a), valueCell(actual.value, b)];
  } else {
    pair = [wholeCell(expected), wholeCell(actual)];
  }
  // Two secrets, or two values the JSON shows alike: say that they differ.
  if (pair[0] === pair[1]) pair[1] = `${pair[1]} *(differs)*`;
  return pair;
}

/** Where every field of a dynamic provider's refresh is said, for advice. */
const EVENT_STREAM_ADVICE =
  "Read the engine event stream instead: `pulumi refresh --preview-only --event-log refresh.events` (or `--json` with `PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true`), then `cloudinfra-drift-report refresh.events`.";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function where(report: DriftReport): string {
  if (report.stack === undefined) return "";
  return ` of stack ${codeSpan(report.stack)}${report.project ? ` (project ${codeSpan(report.project)})` : ""}`;
}

const PAST: Record<string, string> = {
  create: "created",
  update: "updated",
  delete: "deleted",
  replace: "replaced",
  import: "imported",
};

function opCounts(rows: ResourceRow[], applied: boolean): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.op, (counts.get(row.op) ?? 0) + 1);
  return [...counts]
    .map(([op, n]) => (applied ? `${n} ${PAST[op] ?? op}` : `${n} to ${op}`))
    .join(", ");
}

function resourceCell(row: ResourceRow): string {
  const type = /^[A-Za-z0-9_.-]+$/.test(row.type) ? row.type : codeSpan(row.type);
  return `${type} ${codeSpan(row.name)}`;
}

function fieldCell(f: FieldRow): string {
  return (f.field === "" ? "*(resource)*" : codeSpan(f.field)) + (f.replaces ? " (replaces)" : "");
}

/**
 * The engine's summary, when its total is not the report's: it also counts the stack,
 * components and explicit providers (never a default provider, an internal step).
 */
function engineCount(report: DriftReport): string {
  const entries = Object.entries(report.engineSummary).filter(([, n]) => n > 0);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  if (entries.length === 0 || total === report.resources) return "";
  const summary = entries.map(([op, n]) => `${n} ${op}`).join(", ");
  const { stack, components, providers } = report.alsoCounted;
  const also = [
    ...(stack > 0 ? ["the stack"] : []),
    ...(components > 0 ? [plural(components, "component")] : []),
    ...(providers > 0 ? [plural(providers, "provider")] : []),
  ];
  if (also.length === 0 || report.resources + stack + components + providers !== total) {
    return ` The engine's summary: ${summary}.`;
  }
  const list = also.length === 1 ? also[0] : `${also.slice(0, -1).join(", ")} and ${also.at(-1)}`;
  return ` The engine's summary (${summary}) also counts ${list}.`;
}

/** One report as its parts: what comes before the table rows, the rows, what comes after. */
interface Parts {
  head: string[];
  rows: string[];
  tail: string[];
}

function parts(report: DriftReport): Parts {
  const head: string[] = [];
  const rows: string[] = [];
  const tail: string[] = [];
  const changed = changedResources(report);
  const failed = report.errors.length > 0;
  const applied = report.applied;
  if (failed) {
    // A run that failed proves nothing about what it did not reach: no verdict, only findings.
    head.push(
      `### The ${report.kind === "refresh" ? "refresh" : applied ? "update" : "preview"} failed: no verdict`,
      "",
      `The run${where(report)} stopped with ${plural(report.errors.length, "error")}; what it did not reach may differ too.`,
    );
  }
  if (report.kind === "refresh") {
    if (!failed) {
      head.push(
        changed > 0
          ? `### Drift: ${changed} of ${plural(report.resources, "resource")} changed outside Pulumi`
          : report.undetermined > 0
            ? `### Drift unknown: ${plural(report.undetermined, "resource")} refreshed, outcome not in this JSON`
            : `### No drift`,
        "",
        changed > 0
          ? (applied
              ? `What runs differed from the state${where(report)}; this refresh wrote it into the state.`
              : `What runs differs from the state${where(report)}.`) + engineCount(report)
          : report.undetermined > 0
            ? `This preview digest of a \`--refresh\` run counts the plan, not the refresh, so it cannot say whether anything${where(report)} drifted.`
            : `All ${plural(report.resources, "resource")}${where(report)} match what runs.`,
      );
    }
    if (report.rows.length > 0) {
      head.push("", "| Resource | Field | In the state | Live |", "|---|---|---|---|");
      for (const row of report.rows) {
        for (const f of row.fields) {
          const [expected, actual] = cells(f);
          rows.push(`| ${resourceCell(row)} | ${fieldCell(f)} | ${expected} | ${actual} |`);
        }
      }
    }
    if (report.unexplained > 0) {
      tail.push(
        "",
        `${plural(report.unexplained, "more resource")} changed, but this JSON does not say which: Pulumi's preview digest leaves out what a refresh of a dynamic provider's resource found.`,
      );
    }
    if ((report.unexplained > 0 || report.undetermined > 0) && report.format === "digest") {
      tail.push("", EVENT_STREAM_ADVICE);
    }
    if (changed > 0) {
      tail.push(
        "",
        applied
          ? "The state now holds what runs: change the code to match it, or `pulumi up` puts back what the code says."
          : "`pulumi up` puts each of them back as the state and the code say; `pulumi refresh` accepts what runs into the state instead (then change the code to match).",
      );
    }
  } else {
    const sideB = applied
      ? report.refreshed
        ? "Live before"
        : "Before"
      : report.refreshed
        ? "Live (refreshed)"
        : "In the state";
    const up = `\`pulumi up${report.refreshed ? " --refresh" : ""}\``;
    if (!failed) {
      head.push(
        report.rows.length === 0
          ? applied
            ? "### Nothing changed"
            : "### No changes"
          : `### ${applied ? "Applied" : "Planned changes"}: ${opCounts(report.rows, applied)}`,
        "",
        report.rows.length === 0
          ? applied
            ? `${up} changed nothing${where(report)}.`
            : `The code matches ${report.refreshed ? "what runs" : "the state"}${where(report)}.`
          : applied
            ? `What ${up} changed${where(report)}${report.refreshed ? ", against what ran (the refreshed state)" : ""}.`
            : `What ${up} would change${where(report)}${report.refreshed ? ", against what runs (the refreshed state)" : ""}.`,
      );
    }
    if (report.rows.length > 0) {
      head.push(
        "",
        `| Resource | Change | Field | In the code | ${sideB} |`,
        "|---|---|---|---|---|",
      );
      for (const row of report.rows) {
        for (const f of row.fields) {
          const [expected, actual] = cells(f);
          rows.push(
            `| ${resourceCell(row)} | ${row.op} | ${fieldCell(f)} | ${expected} | ${actual} |`,
          );
        }
      }
    }
  }
  if (report.errors.length > 0) {
    const more = report.errors.length - MAX_ERRORS;
    tail.push(
      "",
      "**Errors**",
      "",
      ...report.errors.slice(0, MAX_ERRORS).map((e) => `- ${codeSpan(shorten(e, MAX_ERROR))}`),
      ...(more > 0 ? [`- and ${plural(more, "more error")}`] : []),
    );
  }
  return { head, rows, tail };
}

/** One input of a several-run report: its report, or why it could not be read. */
export interface Section {
  /** The file it came from (or `stdin`). */
  source: string;
  report?: DriftReport;
  /** Why the input was not read (not a Pulumi run, past a bound). */
  error?: string;
}

/** Options of {@link renderMarkdown}. */
export interface MarkdownOptions {
  /** The most characters written; default {@link MARKDOWN_LIMIT}. */
  limit?: number;
  /** Where the whole report is, named when rows are left out (`drift.json`). */
  whole?: string;
  /** A line appended as it is (the notify fingerprint's HTML comment), within the limit. */
  trailer?: string;
}

const VERDICT_WORD: Record<ReturnType<typeof verdictOf>, string> = {
  drift: "drift",
  clean: "no drift",
  unknown: "unknown",
  changes: "changes",
  "no-changes": "no changes",
  failed: "failed: no verdict",
};

function stackName(section: Section): string {
  return section.report?.stack ?? section.source;
}

/** The total of a several-run report: a line and a table with one row per stack. */
function total(sections: Section[]): string[] {
  const counts = new Map<string, number>();
  const rows: string[] = [];
  for (const s of sections) {
    const verdict = s.report === undefined ? "not read" : VERDICT_WORD[verdictOf(s.report)];
    counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
    const changed =
      s.report === undefined ? "—" : `${changedResources(s.report)} of ${s.report.resources}`;
    rows.push(`| ${codeSpan(stackName(s))} | ${verdict} | ${changed} |`);
  }
  return [
    `## ${plural(sections.length, "stack")}: ${[...counts].map(([v, n]) => `${n} ${v}`).join(", ")}`,
    "",
    "| Stack | Verdict | Resources changed |",
    "|---|---|---|",
    ...rows,
  ];
}

/**
 * The Markdown of one report, or of several (one per stack: a total, then a section each), at
 * most `options.limit` characters: rows past it are left out, and a line says how many.
 */
export function renderMarkdown(
  input: DriftReport | Section[],
  options: MarkdownOptions = {},
): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const sections: Section[] = Array.isArray(input) ? input : [{ source: "", report: input }];
  const several = Array.isArray(input) && input.length !== 1;
  const built = sections.map((s): Parts => {
    if (s.report !== undefined) return parts(s.report);
    return {
      head: [`### ${codeSpan(s.source)}: not read`, "", codeSpan(s.error ?? "")],
      rows: [],
      tail: [],
    };
  });
  const top = several ? [...total(sections), ""] : [];
  const separator = several ? ["", "---", ""] : [];
  const size = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0);
  // Room for the rows: the limit less everything else, and the lines saying what was left out.
  const reserve =
    (300 + (options.whole?.length ?? 0)) * sections.length + (options.trailer?.length ?? 0);
  let room =
    limit -
    reserve -
    size(top) -
    built.reduce((n, p) => n + size(p.head) + size(p.tail) + size(separator), 0);
  const whole =
    options.whole === undefined
      ? "`cloudinfra-drift-report --format json`"
      : codeSpan(options.whole);
  const lines: string[] = [...top];
  built.forEach((p, i) => {
    if (i > 0) lines.push(...separator);
    lines.push(...p.head);
    let left = 0;
    for (const row of p.rows) {
      if (left === 0 && row.length + 1 <= room) {
        lines.push(row);
        room -= row.length + 1;
      } else {
        left++;
      }
    }
    if (left > 0) {
      lines.push(
        "",
        `**${plural(left, "more row")} of ${p.rows.length} not shown**: this report is cut at ${limit.toLocaleString("en-US")} characters (what a pull-request comment takes). The whole report: ${whole}.`,
      );
    }
    lines.push(...p.tail);
  });
  if (options.trailer !== undefined) lines.push("", options.trailer);
  const text = `${lines.join("\n")}\n`;
  // Heads and tails are bounded per stack; a limit too small even for them is cut hard.
  return text.length <= limit ? text : `${text.slice(0, limit - 2)}…\n`;
}
