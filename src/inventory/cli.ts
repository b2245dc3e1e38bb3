#!/usr/bin/env node
/**
 * cloudinfra-inventory: what runs in the accounts that no stack manages, as Markdown (a job
 * summary) and JSON, and an import file that adopts it. See docs/drift-and-adoption.md.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { reportError } from "../lib/cli-output";
import {
  type Account,
  accountFromEnvironment,
  EXIT,
  type InventoryOptions,
  readAccountsFile,
  readIgnoreFile,
  renderInventoryMarkdown,
  runInventory,
} from "./index";

const TOOL = "cloudinfra-inventory";

const USAGE = `Usage: ${TOOL} [--state FILE|DIR]... [--accounts FILE] [--ignore FILE]
                            [--import-file FILE] [--json FILE] [--format markdown|json]

Lists every object of the account (one list per kind) and compares it with the stacks' states
(\`pulumi stack export\` files, or folders of them; both flavours): which objects a stack manages,
which none does (unmanaged), which a stack records but the account no longer has (missing), and
which two resources manage at once (conflicts), with the coverage per kind. Users cannot be
listed by the API: their coverage is unknown.

  --state FILE|DIR     a stack export, or a folder of them (*.json); repeatable. The account is
                       the provider's: CLOUDINFRA_ENDPOINT, CLOUDINFRA_API_KEY, CLOUDINFRA_CA_CERT
  --accounts FILE      several accounts (YAML or JSON), each with its stack files; see the guide
  --ignore FILE        objects left unmanaged on purpose, one rule a line: Kind, Kind:<id>,
                       Kind:name=<pattern> (* and ?), *:name=<pattern>
  --import-file FILE   write the import file of the unmanaged objects (pulumi import --file);
                       with several accounts FILE must hold {account}
  --json FILE          also write the report as JSON (schema/inventory-report.schema.json)
  --format F           what standard output gets: markdown (default) or json

Exit status: 0 every object is managed by one stack; 3 unmanaged, conflicting or missing objects
were found; 4 incomplete: a stack file, an account or a list could not be read (named in the
report), no verdict; 1 error (nothing reported); 2 bad usage.
`;

function usageError(message: string): number {
  process.stderr.write(`${TOOL}: ${message}\n\n${USAGE}`);
  return EXIT.usage;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        state: { type: "string", multiple: true },
        accounts: { type: "string" },
        ignore: { type: "string" },
        "import-file": { type: "string" },
        json: { type: "string" },
        format: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values } = parsed;
  if (values["help"] === true) {
    process.stdout.write(USAGE);
    return EXIT.clean;
  }
  const str = (name: string) => {
    const v = values[name];
    return typeof v === "string" ? v : undefined;
  };
  const format = str("format") ?? "markdown";
  if (format !== "markdown" && format !== "json") {
    return usageError(`--format must be markdown or json, not ${JSON.stringify(format)}`);
  }
  const states = (values["state"] as string[] | undefined) ?? [];
  const accountsFile = str("accounts");
  if (accountsFile !== undefined && states.length > 0) {
    return usageError("give the stack files in the accounts file, or --state without it, not both");
  }
  if (accountsFile === undefined && states.length === 0) {
    return usageError("give at least one --state FILE|DIR (or an --accounts file)");
  }
  try {
    const accounts: Account[] =
      accountsFile === undefined
        ? [accountFromEnvironment(states)]
        : readAccountsFile(accountsFile);
    const options: InventoryOptions = { accounts };
    const ignore = str("ignore");
    if (ignore !== undefined) options.ignore = { rules: readIgnoreFile(ignore), file: ignore };
    const importFile = str("import-file");
    if (importFile !== undefined) options.importFile = importFile;
    const report = await runInventory(options);
    const json = `${JSON.stringify(report, null, 2)}\n`;
    const jsonFile = str("json");
    if (jsonFile !== undefined) writeFileSync(jsonFile, json);
    process.stdout.write(format === "json" ? json : renderInventoryMarkdown(report));
    if (report.verdict === "incomplete") {
      process.stderr.write(
        `${TOOL}: incomplete: ${report.problems.map((p) => `${p.subject}: ${p.message}`).join("; ")}\n`,
      );
    }
    return report.exitCode;
  } catch (err) {
    reportError(TOOL, err);
    return EXIT.error;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
