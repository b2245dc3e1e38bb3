#!/usr/bin/env node
/**
 * cloudinfra-drift-report: Pulumi's JSON output as a Markdown or JSON report (resource, field,
 * what the state or the code says, what runs), for a CI job summary, a pull-request comment, an
 * issue or a machine; `notify` decides what a scheduled drift check tells people.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { reportError } from "../lib/cli-output";
import { MAX_INPUT_BYTES } from "./bounds";
import { analyse, NotPulumiJsonError, parsePulumiJson } from "./index";
import { toJsonReport } from "./json";
import { MARKDOWN_LIMIT, renderMarkdown, type Section } from "./markdown";
import { decide, markerOf, resolvedBody, webhookBody } from "./notify";
import { verdictOf } from "./report";

const USAGE = `Usage: cloudinfra-drift-report [FILE ...] [--kind refresh|preview] [--format markdown|json]
                               [--json-out FILE]
       cloudinfra-drift-report notify FILE [--issue FILE] [--body FILE] [--webhook-body FILE]
                               [--link URL]

Reads the whole output of Pulumi runs, one run per FILE (standard input when FILE is - or left
out): the preview digest \`pulumi refresh --preview-only --json\` or \`pulumi preview --json\`
prints, or the engine event stream of \`--event-log FILE\` (or of \`--json\` with
PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true). Writes a report on standard output: every resource
and field that differs, with what the state (or the code) says and what runs. Secret values show
as [secret]. Several FILEs (one per stack) make one report: a total, then a section per stack.
An event log of \`pulumi up\` (or of a refresh that was not a preview) is reported as applied.

  --kind refresh|preview   read the refresh steps as drift (state against live), or the plan as
                           planned changes (code against the state, or against what runs after
                           \`preview --refresh\`); default: refresh when the run only refreshed
  --format markdown|json   Markdown (default; at most ${MARKDOWN_LIMIT} characters, rows past that left
                           out and counted) or JSON (every row; schema/drift-report.schema.json)
  --json-out FILE          also write the JSON report to FILE; the Markdown names it when cut

notify: for a scheduled drift check of one stack (FILE: its refresh), decides what to tell
people and prints the decision as JSON {stack, decision, open, comment, close, webhook,
fingerprint, newFields}: decision new (no open issue: open one, webhook), same (the open issue's
last report has the same fingerprint: nothing), changed (comment; webhook if a field is new),
resolved (clean: comment and close), clean (nothing), unknown (the run failed: nothing).
  --issue FILE             the stack's open issue, body and comments (leave out when none is open)
  --body FILE              write the issue body or comment there (the report, or "resolved")
  --webhook-body FILE      write a Slack-compatible {"text": ...} body there when webhook is true
  --link URL               a link the webhook body ends with (the issue, or the run)

For every field of this package's resources, read the event stream: Pulumi's preview digest
leaves out what a refresh of a dynamic provider found.

Limits: ${MAX_INPUT_BYTES / 1024 / 1024} MiB per input, JSON nested at most 64 deep, one run per input.

Exit status: 0 when the report was written (or the decision made); 1 when an input is not a whole
Pulumi run (empty, an error object, cut short, two runs, past a limit: it says what it got) or a
run failed (the report is written, with no verdict); 2 on bad usage.
`;

class UsageError extends Error {}

/** A file or standard input as text, refused past {@link MAX_INPUT_BYTES} before it is all read. */
function readInput(file: string): string {
  const fd = file === "-" ? 0 : openSync(file, "r");
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > MAX_INPUT_BYTES) {
      throw new NotPulumiJsonError(
        `${stat.size} bytes; the report reads at most ${MAX_INPUT_BYTES} (${MAX_INPUT_BYTES / 1024 / 1024} MiB) per run`,
      );
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.alloc(1024 * 1024);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") continue;
        if ((err as NodeJS.ErrnoException).code === "EOF") break;
        throw err;
      }
      if (n === 0) break;
      total += n;
      if (total > MAX_INPUT_BYTES) {
        throw new NotPulumiJsonError(
          `more than ${MAX_INPUT_BYTES} bytes; the report reads at most ${MAX_INPUT_BYTES / 1024 / 1024} MiB per run`,
        );
      }
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

const sourceOf = (file: string) => (file === "-" ? "stdin" : file);

/** One input read into a section: its report, or why it is not one. */
function sectionOf(file: string, kind: "refresh" | "preview" | undefined): Section {
  const source = sourceOf(file);
  let text: string;
  try {
    text = readInput(file);
  } catch (err) {
    if (err instanceof NotPulumiJsonError) return { source, error: err.message };
    return { source, error: `cannot read ${file}: ${(err as Error).message}` };
  }
  try {
    const run = parsePulumiJson(text);
    return { source, report: analyse(run, kind ?? run.kind) };
  } catch (err) {
    if (err instanceof NotPulumiJsonError) return { source, error: err.message };
    throw err;
  }
}

/** Says on stderr why each input failed; the exit status. */
function complain(sections: Section[]): number {
  let status = 0;
  for (const s of sections) {
    if (s.error !== undefined) {
      process.stderr.write(`cloudinfra-drift-report: ${s.source}: ${s.error}\n`);
      status = 1;
    } else if (s.report !== undefined && s.report.errors.length > 0) {
      const n = s.report.errors.length;
      process.stderr.write(
        `cloudinfra-drift-report: ${s.source}: the run failed (${n === 1 ? "1 error" : `${n} errors`}); no verdict\n`,
      );
      status = 1;
    }
  }
  return status;
}

function report(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      kind: { type: "string" },
      format: { type: "string" },
      "json-out": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const kind = values.kind;
  if (kind !== undefined && kind !== "refresh" && kind !== "preview") {
    throw new UsageError("--kind must be refresh or preview");
  }
  const format = values.format ?? "markdown";
  if (format !== "markdown" && format !== "json") {
    throw new UsageError("--format must be markdown or json");
  }
  const files = positionals.length === 0 ? ["-"] : positionals;
  if (files.filter((f) => f === "-").length > 1) throw new UsageError("give - at most once");
  const sections = files.map((file) => sectionOf(file, kind));
  // One unreadable input alone prints nothing: no report to stand on.
  if (sections.length === 1 && sections[0]?.report === undefined) return complain(sections);
  const json = values["json-out"];
  if (format === "json" || json !== undefined) {
    const text = `${JSON.stringify(toJsonReport(sections), null, 2)}\n`;
    if (json !== undefined) writeFileSync(json, text);
    if (format === "json") process.stdout.write(text);
  }
  if (format === "markdown") {
    const single = sections.length === 1 ? sections[0]?.report : undefined;
    process.stdout.write(
      renderMarkdown(single ?? sections, json === undefined ? {} : { whole: json }),
    );
  }
  return complain(sections);
}

function notify(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      issue: { type: "string" },
      body: { type: "string" },
      "webhook-body": { type: "string" },
      link: { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError("notify takes one FILE: a stack's refresh");
  const section = sectionOf(positionals[0] ?? "-", "refresh");
  if (section.report === undefined) return complain([section]);
  const issue = values.issue === undefined ? undefined : readInput(values.issue);
  const run = section.report;
  const result = decide(run, issue);
  if (values.body !== undefined && (result.open || result.comment)) {
    writeFileSync(
      values.body,
      result.decision === "resolved"
        ? resolvedBody(run)
        : renderMarkdown(run, { trailer: markerOf(run) }),
    );
  }
  if (values["webhook-body"] !== undefined && result.webhook) {
    writeFileSync(
      values["webhook-body"],
      `${JSON.stringify(webhookBody(run, result, values.link))}\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return verdictOf(run) === "failed" ? complain([section]) : 0;
}

function main(argv: string[]): number {
  try {
    return argv[0] === "notify" ? notify(argv.slice(1)) : report(argv);
  } catch (err) {
    if (
      err instanceof UsageError ||
      (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      process.stderr.write(`cloudinfra-drift-report: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    reportError("cloudinfra-drift-report", err);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
