#!/usr/bin/env node
/**
 * cloudinfra-drift-report: Pulumi's JSON output as a Markdown table (resource, field, what the
 * state or the code says, what runs), for a CI job summary, a pull-request comment or an issue.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { reportError } from "../lib/cli-output";
import { analyse, NotPulumiJsonError, parsePulumiJson, renderMarkdown } from "./index";

const USAGE = `Usage: cloudinfra-drift-report [FILE | -] [--kind refresh|preview]

Reads the whole output of one Pulumi run (from FILE, or standard input when FILE is - or left
out): the preview digest \`pulumi refresh --preview-only --json\` or \`pulumi preview --json\`
prints, or the engine event stream of \`--event-log FILE\` (or of \`--json\` with
PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true). Writes a Markdown report on standard output: every
resource and field that differs, with what the state (or the code) says and what runs. Secret
values show as [secret].

  --kind refresh|preview   read the refresh steps as drift (state against live), or the plan as
                           planned changes (code against the state, or against what runs after
                           \`preview --refresh\`); default: refresh when the run only refreshed

For every field of this package's resources, read the event stream: Pulumi's preview digest
leaves out what a refresh of a dynamic provider found.

Exit status: 0 when the report was written; 1 when the input is not a whole Pulumi run (empty,
an error object, cut short: it says what it got) or the run failed (the report is written, with
no verdict); 2 on bad usage.
`;

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { kind: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    process.stderr.write(`cloudinfra-drift-report: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values["help"] === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const kind = values["kind"];
  if (kind !== undefined && kind !== "refresh" && kind !== "preview") {
    process.stderr.write(`cloudinfra-drift-report: --kind must be refresh or preview\n\n${USAGE}`);
    return 2;
  }
  if (positionals.length > 1) {
    process.stderr.write(`cloudinfra-drift-report: give at most one FILE\n\n${USAGE}`);
    return 2;
  }
  const file = positionals[0] ?? "-";
  let text: string;
  try {
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    process.stderr.write(
      `cloudinfra-drift-report: cannot read ${file}: ${(err as Error).message}\n`,
    );
    return 1;
  }
  const source = file === "-" ? "stdin" : file;
  try {
    const run = parsePulumiJson(text);
    const report = analyse(run, kind ?? run.kind);
    process.stdout.write(renderMarkdown(report));
    if (report.errors.length === 0) return 0;
    process.stderr.write(
      `cloudinfra-drift-report: ${source}: the run failed (${report.errors.length === 1 ? "1 error" : `${report.errors.length} errors`}); no verdict\n`,
    );
    return 1;
  } catch (err) {
    if (!(err instanceof NotPulumiJsonError)) {
      reportError("cloudinfra-drift-report", err);
      return 1;
    }
    process.stderr.write(`cloudinfra-drift-report: ${source}: ${err.message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
