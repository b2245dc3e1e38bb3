#!/usr/bin/env node
/**
 * cloudinfra-drift-report: Pulumi's JSON output as a Markdown table (resource, field, what the
 * state or the code says, what runs), for a CI job summary, a pull-request comment or an issue.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { driftReport, NotPulumiJsonError } from "./index";

const USAGE = `Usage: cloudinfra-drift-report [FILE | -] [--kind refresh|preview]

Reads the JSON that \`pulumi refresh --preview-only --json\` or \`pulumi preview --json\` printed
(from FILE, or standard input when FILE is - or left out) and writes a Markdown report on
standard output: every resource and field that differs, with what the state (or the code) says
and what runs. Secret values show as [secret].

  --kind refresh|preview   read the steps as drift (state against live) or as planned changes
                           (code against state); default: refresh when the JSON holds refresh steps

For every field of this package's resources, set PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true for
the refresh: Pulumi's preview digest leaves out what a refresh of a dynamic provider found.

Exit status: 0 when the report was written, 1 when the input is not Pulumi JSON, 2 on bad usage.
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
  try {
    process.stdout.write(driftReport(text, kind === undefined ? {} : { kind }));
    return 0;
  } catch (err) {
    if (!(err instanceof NotPulumiJsonError)) throw err;
    process.stderr.write(
      `cloudinfra-drift-report: ${file === "-" ? "stdin" : file}: ${err.message}\n`,
    );
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
