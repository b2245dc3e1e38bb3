#!/usr/bin/env node
/**
 * cloudinfra-emulator: the CloudInfra API on this machine, over HTTPS.
 *
 * When it is ready it writes `<data-dir>/emulator.json` ({endpoint, caCertFile, apiKey, pid,
 * dataDir}) and prints `export CLOUDINFRA_...=` lines on stdout; everything else goes to stderr.
 * Tools wait for emulator.json: it is removed at start-up and on a clean shutdown, so it never
 * describes a previous run. `cloudinfra-emulator env` prints the same lines for the emulator
 * running in a data dir, or the only one running (env.ts).
 */
// First, before anything that needs a newer Node than the one running it.
import "./node-check";
// Then, before anything is opened: the allocator setting, which re-executes the CLI once (same pid).
import "./allocator-check";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { reportError } from "../../lib/cli-output";
import { messageOf } from "../../lib/message";
import { UnsafeFolderError } from "../../lib/private-dir";
import { readTextFile } from "../../lib/text-file";
import { YAML_FILE_MAX_BYTES } from "../../lib/yaml-document";
import type { EmulatorOptions } from "../emulator";
import { Emulator } from "../emulator";
import type { SeededAccount } from "../seed/file";
import { apiKeyProblem, MIN_API_KEY_LENGTH } from "../service/auth";
import { writeFileAtomic } from "../store/files";
import { type EmulatorInfoFile, emulatorEnv, exportLines } from "./env";
import { register, unregister } from "./registry";

const USAGE = `Usage: cloudinfra-emulator [options]
       cloudinfra-emulator env [--data-dir DIR]

  --port N               port to listen on; 0 picks a free one (default 8443)
  --host ADDRESS         interface to listen on (default 127.0.0.1)
  --data-dir DIR         keep state, TLS files and emulator.json here (default ./.emulator)
  --memory               keep nothing: state lives in memory, TLS files in a temp dir
  --seed FILE            create the accounts and objects FILE (YAML) describes before
                         announcing readiness; any problem: all listed, nothing created, exit 2
  --quiet                no access log on stderr
  --transition-ms N      duration of every asynchronous server transition (default: 1.5-3 s)
  --manual-transitions   transitions wait for POST /_emulator/lifecycle/advance
  --rate-limit N         requests per second per key (default 50)
  --burst N              requests allowed at once per key (default 100)
  --no-rate-limit        never answer 429 (headers are still sent)
  -h, --help             this text

env: prints the export lines of the emulator running in --data-dir DIR, or else of the one
running in ./.emulator or started anywhere else by this user, for eval "$(...)".

Environment: CLOUDINFRA_EMULATOR_API_KEY fixes the bootstrap administrator's key
(${MIN_API_KEY_LENGTH} to 256 visible ASCII characters, no spaces).
`;

function fail(message: string): never {
  process.stderr.write(`cloudinfra-emulator: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    fail(`--${name} expects an integer >= ${min}, got ${value}`);
  return parsed;
}

function options(): { emulator: EmulatorOptions; quiet: boolean; seed: string | undefined } {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof spec }>>;
  const spec = {
    port: { type: "string" },
    host: { type: "string" },
    "data-dir": { type: "string" },
    memory: { type: "boolean" },
    seed: { type: "string" },
    quiet: { type: "boolean" },
    "transition-ms": { type: "string" },
    "manual-transitions": { type: "boolean" },
    "rate-limit": { type: "string" },
    burst: { type: "string" },
    "no-rate-limit": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  } as const;
  try {
    parsed = parseArgs({ options: spec, strict: true, allowPositionals: false });
  } catch (error) {
    fail(messageOf(error));
  }
  const v = parsed.values;
  if (v.help === true) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (v.memory === true && v["data-dir"] !== undefined)
    fail("--data-dir and --memory exclude each other");
  const emulator: EmulatorOptions = {
    host: v.host ?? "127.0.0.1",
    port: integer("port", v.port, 0) ?? 8443,
    log: v.quiet !== true,
  };
  if (v.memory !== true) emulator.dataDir = resolve(v["data-dir"] ?? ".emulator");
  const key = process.env["CLOUDINFRA_EMULATOR_API_KEY"];
  if (key !== undefined && key !== "") {
    const problem = apiKeyProblem(key);
    if (problem !== undefined) fail(`CLOUDINFRA_EMULATOR_API_KEY ${problem}`);
    emulator.apiKey = key;
  }
  const transitionMs = integer("transition-ms", v["transition-ms"], 0);
  emulator.lifecycle = { mode: v["manual-transitions"] === true ? "manual" : "auto" };
  if (transitionMs !== undefined) {
    emulator.lifecycle.durations = {
      provisioning: transitionMs,
      stopping: transitionMs,
      starting: transitionMs,
      rebooting: transitionMs,
      deleting: transitionMs,
    };
  }
  const rate = integer("rate-limit", v["rate-limit"], 1);
  const burst = integer("burst", v.burst, 1);
  emulator.rateLimit = { enabled: v["no-rate-limit"] !== true };
  if (rate !== undefined) emulator.rateLimit.rate_per_second = rate;
  if (burst !== undefined) emulator.rateLimit.burst = burst;
  return { emulator, quiet: v.quiet === true, seed: v.seed };
}

/** One line per seeded account; API keys are never printed (the file has those it fixes). */
function seededSummary(file: string, accounts: readonly SeededAccount[]): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
  return accounts
    .map(
      (a) =>
        `cloudinfra-emulator: seeded account ${JSON.stringify(a.name)} (id ${a.account_id}) from ${file}: ` +
        [
          count(Object.keys(a.servers).length, "server"),
          count(Object.keys(a.tags).length, "tag"),
          count(Object.keys(a.ssh_keys).length, "SSH key"),
          count(Object.keys(a.security_groups).length, "security group"),
          count(Object.keys(a.roles).length, "role"),
          count(Object.keys(a.users).length, "user"),
        ].join(", "),
    )
    .join("\n");
}

/** `cloudinfra-emulator env [--data-dir DIR]`. */
function env(args: string[]): never {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof spec }>>;
  const spec = { "data-dir": { type: "string" }, help: { type: "boolean", short: "h" } } as const;
  try {
    parsed = parseArgs({ args, options: spec, strict: true, allowPositionals: false });
  } catch (error) {
    fail(messageOf(error));
  }
  if (parsed.values.help === true) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const result = emulatorEnv({ dataDir: parsed.values["data-dir"], cwd: process.cwd() });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exit(result.code);
}

async function main(): Promise<void> {
  if (process.argv[2] === "env") env(process.argv.slice(3));
  const { emulator: settings, seed } = options();
  let seedText: string | undefined;
  if (seed !== undefined) {
    const read = readTextFile(seed, YAML_FILE_MAX_BYTES);
    if (!read.ok) fail(`--seed ${seed}: ${read.message}`);
    else seedText = read.text;
  }
  const infoDir = settings.dataDir;
  // Opening takes the data dir's lock (or refuses a dir another emulator holds); only then is
  // its emulator.json ours to remove, never the running emulator's.
  const emulator = new Emulator(settings);
  if (infoDir !== undefined) rmSync(join(infoDir, "emulator.json"), { force: true });
  // In memory mode the CA already sits in a temp dir; emulator.json goes next to it.
  const infoFile = join(infoDir ?? join(emulator.caCertFile, ".."), "emulator.json");

  // Installed before anything announces readiness: a signal that arrives right after the
  // export lines must shut down cleanly, not kill the process with the default action.
  let stopping = false;
  let registered: string | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`cloudinfra-emulator: ${signal} again, exiting now\n`);
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`cloudinfra-emulator: ${signal}, shutting down\n`);
    rmSync(infoFile, { force: true });
    if (registered !== undefined) unregister(registered);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        emulator.reportError("shutting down", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  try {
    await emulator.start();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(
        `port ${settings.port} on ${settings.host} is in use by another process (another emulator?); ` +
          "pick another with --port N, or --port 0 for any free port",
      );
    }
    throw error;
  }
  // Before emulator.json exists, so whoever waits for it finds the seeded accounts.
  if (seedText !== undefined && seed !== undefined) {
    try {
      const { accounts } = await emulator.admin.seedAccounts(seedText, seed);
      process.stderr.write(`${seededSummary(seed, accounts)}\n`);
    } catch (error) {
      process.stderr.write(`cloudinfra-emulator: ${messageOf(error)}\n`);
      await emulator.close();
      process.exit(2);
    }
  }
  const info: EmulatorInfoFile = {
    endpoint: emulator.endpoint,
    caCertFile: emulator.caCertFile,
    apiKey: emulator.bootstrapKey,
    pid: process.pid,
    dataDir: infoDir ?? null,
  };
  await writeFileAtomic(infoFile, `${JSON.stringify(info, null, 2)}\n`, 0o600);
  try {
    registered = register(process.pid, infoFile);
  } catch (error) {
    if (!(error instanceof UnsafeFolderError)) throw error;
    // The emulator works without it; only `env` without --data-dir cannot find it.
    process.stderr.write(
      `cloudinfra-emulator: not registered for \`emulator env\`: ${error.message}\n`,
    );
  }
  process.stdout.write(exportLines(info));
  process.stderr.write(
    `cloudinfra-emulator listening on ${info.endpoint} (${infoDir === undefined ? "memory" : `data dir ${infoDir}`}); ` +
      `connection details in ${infoFile}; console at ${info.endpoint}/_emulator/console/\n`,
  );
}

main().catch((error: unknown) => {
  reportError("cloudinfra-emulator", error);
  process.exit(1);
});
