/**
 * The accounts an inventory reads. Without an accounts file: one account, `default`, configured as
 * the provider is from the `CLOUDINFRA_ENDPOINT`, `CLOUDINFRA_API_KEY` and `CLOUDINFRA_CA_CERT`
 * variables, with the stack files given on the command line. With one (YAML or JSON):
 *
 * ```yaml
 * accounts:
 *   - name: prod                       # [a-z0-9][a-z0-9_-]*, unique
 *     endpoint: https://api.example.com # default: CLOUDINFRA_ENDPOINT
 *     apiKeyEnv: PROD_API_KEY          # the variable that holds the key (never the key itself)
 *     caCert: ./prod-ca.pem            # PEM text or a path; default: CLOUDINFRA_CA_CERT
 *     states: [states/prod]            # stack export files or folders of them
 *     provider: urn:pulumi:...         # optional: the explicit provider the import file names
 * ```
 *
 * Paths are relative to the accounts file. Settings go through the provider's own resolution
 * (`resolveSettings`: https only, what to set when something is missing), so the key is never in a
 * message.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { CloudInfraError, nameErrorClass } from "../api/errors";
import { type ConfigSource, resolveSettings, SETTINGS, type Settings } from "../config";

/** At most this many accounts in one accounts file. */
export const MAX_ACCOUNTS = 100;

export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export const AccountEntrySchema = z.strictObject({
  name: z.string().regex(ACCOUNT_NAME, {
    error: "expected a name of lower-case letters, digits, - and _ (at most 40)",
  }),
  endpoint: z.string().optional(),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: "expected the name of an environment variable that holds the key",
  }),
  caCert: z.string().optional(),
  states: z.array(z.string()).min(1, { error: "list at least one stack file or folder" }),
  provider: z
    .string()
    .regex(/^urn:pulumi:[^:]+::[^:]+::pulumi:providers:cloudinfra::.+$/, {
      error: "expected the URN of a pulumi:providers:cloudinfra resource",
    })
    .optional(),
});

export const AccountsFileSchema = z.strictObject({
  accounts: z
    .array(AccountEntrySchema)
    .min(1, { error: "list at least one account" })
    .max(MAX_ACCOUNTS, { error: `at most ${MAX_ACCOUNTS} accounts` }),
});

/** One account to read, with its settings (the key stays in memory only). */
export interface Account {
  name: string;
  settings: Settings;
  /** Stack files or folders whose objects live in this account. */
  states: string[];
  /** The explicit provider the import file names, when set. */
  provider?: string;
}

export class AccountsFileError extends CloudInfraError {
  static {
    nameErrorClass(AccountsFileError, "AccountsFileError");
  }
}

/** The one account of the environment, with the stack files of the command line. */
export function accountFromEnvironment(states: string[], env = process.env): Account {
  return { name: "default", settings: resolveSettings(undefined, env), states };
}

/** The accounts of an accounts file's text; every problem named at once. */
export function parseAccountsFile(text: string, file: string, env = process.env): Account[] {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new AccountsFileError(`${file}: not YAML or JSON: ${(err as Error).message}`);
  }
  if (typeof data === "object" && data !== null && "accounts" in data) {
    const accounts = (data as { accounts: unknown }).accounts;
    if (
      Array.isArray(accounts) &&
      accounts.some((a) => typeof a === "object" && a && "apiKey" in a)
    ) {
      throw new AccountsFileError(
        `${file}: an account has apiKey: a key must not be written in a file; put it in an environment variable and name that in apiKeyEnv`,
      );
    }
  }
  const parsed = AccountsFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new AccountsFileError(
      parsed.error.issues
        .map((i) => `${file}: ${i.path.join(".") || "(top)"}: ${i.message}`)
        .join("\n"),
    );
  }
  const base = dirname(file);
  const at = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const errors: string[] = [];
  const names = new Set<string>();
  const accounts: Account[] = [];
  parsed.data.accounts.forEach((entry, i) => {
    const where = `${file}: accounts.${i} (${entry.name})`;
    if (names.has(entry.name)) errors.push(`${where}: the name is used twice`);
    names.add(entry.name);
    const key = env[entry.apiKeyEnv];
    if (key === undefined || key === "") {
      errors.push(`${where}: the variable ${entry.apiKeyEnv} (apiKeyEnv) is not set`);
      return;
    }
    const caCert =
      entry.caCert === undefined || entry.caCert.includes("-----BEGIN")
        ? entry.caCert
        : at(entry.caCert);
    const values: Record<string, string | undefined> = {
      [SETTINGS.endpoint.configKey]: entry.endpoint,
      [SETTINGS.apiKey.configKey]: key,
      [SETTINGS.caCert.configKey]: caCert,
    };
    const source: ConfigSource = { get: (k) => values[k] };
    try {
      const account: Account = {
        name: entry.name,
        settings: resolveSettings(source, env),
        states: entry.states.map(at),
      };
      if (entry.provider !== undefined) account.provider = entry.provider;
      accounts.push(account);
    } catch (err) {
      errors.push(`${where}: ${(err as Error).message}`);
    }
  });
  if (errors.length > 0) throw new AccountsFileError(errors.join("\n"));
  return accounts;
}

/** Reads an accounts file. */
export function readAccountsFile(file: string, env = process.env): Account[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new AccountsFileError(`cannot read the accounts file ${file}: ${(err as Error).message}`);
  }
  return parseAccountsFile(text, file, env);
}
