/**
 * `pulumi-cloudinfra/inventory`: what runs in one or more accounts that no stack manages, and an
 * import file that adopts it. The `cloudinfra-inventory` command is {@link runInventory} with its
 * options from the command line.
 */
import { writeFileSync } from "node:fs";
import { CloudInfraClient } from "../api/client";
import { clientOptions } from "../config";
import type { Account } from "./accounts";
import { type AccountReading, analyse, importable } from "./analyse";
import type { IgnoreRule } from "./ignore";
import { importFileOf, logicalNames } from "./import-file";
import { listAccount } from "./live";
import type { InventoryReport } from "./report-schema";
import { readStates } from "./states";

export {
  type Account,
  AccountsFileError,
  accountFromEnvironment,
  parseAccountsFile,
  readAccountsFile,
} from "./accounts";
export { IgnoreFileError, parseIgnoreRules, readIgnoreFile } from "./ignore";
export { type ImportFile, importFileOf, logicalNames } from "./import-file";
export { renderInventoryMarkdown } from "./markdown";
export {
  EXIT,
  INVENTORY_SCHEMA_FILE,
  type InventoryReport,
  InventoryReportSchema,
  inventoryJsonSchema,
} from "./report-schema";

export interface InventoryOptions {
  accounts: Account[];
  /** Rules of the ignore file, and its name for the report. */
  ignore?: { rules: IgnoreRule[]; file: string };
  /**
   * Where to write the import file. With several accounts the path must hold `{account}`, which
   * each account's name replaces.
   */
  importFile?: string;
}

/** Reads the accounts and the stacks, and writes the import files; returns the report. */
export async function runInventory(options: InventoryOptions): Promise<InventoryReport> {
  if (
    options.importFile !== undefined &&
    options.accounts.length > 1 &&
    !options.importFile.includes("{account}")
  ) {
    throw new Error("with several accounts, the import file's path must hold {account}");
  }
  const rules = options.ignore?.rules ?? [];
  const stateProblems: { file: string; message: string }[] = [];
  const readings = await Promise.all(
    options.accounts.map(async (account): Promise<AccountReading> => {
      const { states, problems } = readStates(account.states);
      stateProblems.push(...problems);
      const reading: AccountReading = {
        name: account.name,
        endpoint: account.settings.endpoint,
        listings: [],
        states,
      };
      const client = new CloudInfraClient(clientOptions(account.settings));
      try {
        reading.listings = await listAccount(client);
      } finally {
        await client.close();
      }
      // A refused key refuses every list: said once, for the account.
      const refused = reading.listings.find((l) => l.keyRefused === true);
      if (refused !== undefined) reading.error = `the API key was refused: ${refused.error ?? ""}`;
      return reading;
    }),
  );
  const input = { accounts: readings, stateProblems, ignore: rules };
  const report = analyse(
    options.ignore === undefined ? input : { ...input, ignoreFile: options.ignore.file },
  );
  if (options.importFile !== undefined) {
    readings.forEach((reading, i) => {
      const account = options.accounts[i];
      const path = (options.importFile ?? "").replaceAll("{account}", reading.name);
      const objects = importable(reading, rules);
      const provider =
        account?.provider === undefined ? undefined : { name: reading.name, urn: account.provider };
      const file = importFileOf(objects, logicalNames(objects), provider);
      writeFileSync(path, `${JSON.stringify(file, null, 4)}\n`);
      report.importFiles.push({ account: reading.name, path, resources: file.resources.length });
    });
  }
  return report;
}
