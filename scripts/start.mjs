// `npm start`: the quick start end to end. Uses the emulator in .emulator/ (starting one, in the
// background, if none runs there; a running one is reused, never replaced), then deploys the
// quick-start program:
//  - with the Pulumi CLI (`pulumi` on PATH, else the official `pulumi` npm package, which installs
//    the CLI on first use) and a local state backend inside the project (.pulumi-state/, no login,
//    no passphrase prompt);
//  - where the CLI cannot be had, through the test suite's local engine (test/support/local-engine,
//    as `npm run local-engine` runs it), state in .pulumi-state/local-engine/dev.json.
// Then it prints the outputs, the console's address and the one command that destroys it.
//
// Environment: CLOUDINFRA_START_DATA_DIR (the emulator's data dir, default .emulator),
// CLOUDINFRA_PULUMI (the command that runs the CLI), CLOUDINFRA_START_LOCAL_STATE (the local
// engine's state file, default .pulumi-state/local-engine/dev.json).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..");
// The package's liveness rule (a zombie is not running); `npm start` builds dist/ first.
const { processRunning } = createRequire(import.meta.url)("../dist/lib/process.js");
const dataDir = resolve(ROOT, process.env.CLOUDINFRA_START_DATA_DIR ?? ".emulator");
const stateDir = join(ROOT, ".pulumi-state");
// Beside the CLI's backend: the quick start's state stays in .pulumi-state/, apart from the state
// of `npm run local-engine` by hand (.pulumi-local/), which may belong to another emulator.
const DEFAULT_LOCAL_STATE = join(ROOT, ".pulumi-state", "local-engine", "dev.json");
const localState = resolve(ROOT, process.env.CLOUDINFRA_START_LOCAL_STATE ?? DEFAULT_LOCAL_STATE);
const say = (line) => process.stdout.write(`${line}\n`);
/** A path as a person in the project directory would type it. */
const shown = (path) => (path.startsWith(`${ROOT}/`) ? relative(ROOT, path) : path);

/** The emulator whose emulator.json is in `dataDir` and whose process still runs. */
function runningEmulator() {
  const file = join(dataDir, "emulator.json");
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, "utf8"));
  return Number.isInteger(info.pid) && processRunning(info.pid) ? info : undefined;
}

async function ensureEmulator() {
  const running = runningEmulator();
  if (running) {
    say(`Using the emulator at ${running.endpoint} (pid ${running.pid}, ${dataDir}).`);
    return running;
  }
  say(`Starting an emulator in the background (state in ${dataDir}) ...`);
  const log = openSync(join(ROOT, ".emulator.log"), "a");
  const child = spawn(
    process.execPath,
    [join(ROOT, "dist", "emulator", "cli.js"), "--port", "0", "--data-dir", dataDir],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", log, log],
    },
  );
  child.unref();
  for (let i = 0; i < 200; i++) {
    const info = runningEmulator();
    if (info && info.pid === child.pid) {
      say(`Emulator running at ${info.endpoint} (pid ${info.pid}); stop it with: kill ${info.pid}`);
      return info;
    }
    if (child.exitCode !== null) {
      // Another command started one in the same data dir meanwhile (ours then refuses to start
      // beside it): use that one rather than fail.
      if (info) {
        say(`Using the emulator at ${info.endpoint} (pid ${info.pid}, ${dataDir}).`);
        return info;
      }
      break;
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`the emulator did not start; see ${join(ROOT, ".emulator.log")}`);
}

/** The command that runs the Pulumi CLI here, or why there is none. */
function findPulumi(env) {
  const candidates = process.env.CLOUDINFRA_PULUMI
    ? [process.env.CLOUDINFRA_PULUMI]
    : ["pulumi", "npx --yes pulumi"];
  let why = "";
  for (const candidate of candidates) {
    const [command, ...prefix] = candidate.split(" ");
    const version = spawnSync(command, [...prefix, "version"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const last = (version.stdout ?? "").trim().split("\n").at(-1) ?? "";
    if (version.status === 0 && /^v?\d+\.\d+/.test(last)) return { command, prefix, version: last };
    const detail = (version.stderr || version.stdout || version.error?.message || "")
      .trim()
      .split("\n")
      .at(-1);
    why = `\`${candidate} version\` failed${detail ? `: ${detail}` : ""}`;
  }
  return { why };
}

function pulumi(cli, args, env) {
  return spawnSync(cli.command, [...cli.prefix, ...args], { cwd: ROOT, env, stdio: "inherit" });
}

function withCli(cli, env, emulator) {
  say(`Pulumi CLI ${cli.version}; state in ${stateDir} (a local backend, no login).`);
  const select = pulumi(cli, ["stack", "select", "--create", "dev"], env);
  if (select.status !== 0) return select.status ?? 1;
  // --refresh: a state left by an emulator that is gone (or reset) names objects that no longer
  // exist; refreshing first finds that out instead of trusting the state.
  const up = pulumi(cli, ["up", "--yes", "--refresh"], env);
  if (up.status !== 0) return up.status ?? 1;
  say("\nOutputs:");
  pulumi(cli, ["stack", "output"], env);
  printConsole(emulator);
  say(
    [
      "To destroy it (the emulator keeps running):",
      `  eval "$(node scripts/emulator-env.mjs ${dataDir})" && PULUMI_BACKEND_URL=file://${stateDir} PULUMI_CONFIG_PASSPHRASE= ${[cli.command, ...cli.prefix].join(" ")} destroy --yes`,
    ].join("\n"),
  );
  return 0;
}

/** The quick start through the local engine, as `npm run local-engine -- up` runs it. */
function withLocalEngine(why, emulator) {
  say(
    `No Pulumi CLI here (${why}): running the quick start through the local engine (test/support/local-engine) instead; for the real CLI see https://www.pulumi.com/docs/install/ and run \`npm start\` again.`,
  );
  const emulatorFile = join(dataDir, "emulator.json");
  const args = ["--emulator", shown(emulatorFile), "--state", shown(localState)];
  // --refresh: a state left by an earlier run may name resources an emulator since reset no
  // longer has; refreshing first drops them, so `up` creates them again.
  const up = spawnSync(
    process.execPath,
    [join(ROOT, "test", "support", "local-engine", "cli.ts"), "up", "--refresh", ...args],
    { cwd: ROOT, stdio: "inherit" },
  );
  if (up.status !== 0) return up.status ?? 1;
  printConsole(emulator);
  say(
    [
      "To destroy it (the emulator keeps running):",
      `  npm run local-engine -- destroy ${args.join(" ")}`,
    ].join("\n"),
  );
  return 0;
}

function printConsole(emulator) {
  say(
    [
      "",
      `Console: ${emulator.endpoint}/_emulator/console/ (sign in with the emulator's key: \`npm run -s emulator:env${dataDir === resolve(ROOT, ".emulator") ? "" : ` -- --data-dir ${shown(dataDir)}`}\` prints it as CLOUDINFRA_API_KEY)`,
      `Emulator: pid ${emulator.pid}, state in ${dataDir}; stop it with: kill ${emulator.pid}`,
    ].join("\n"),
  );
}

async function main() {
  if (!existsSync(join(ROOT, "dist", "index.js"))) {
    say("dist/ is not built: run `npm install` first (it builds the package).");
    return 1;
  }
  const emulator = await ensureEmulator();
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    CLOUDINFRA_ENDPOINT: emulator.endpoint,
    CLOUDINFRA_API_KEY: emulator.apiKey,
    CLOUDINFRA_CA_CERT: emulator.caCertFile,
  };
  const cli = findPulumi(env);
  return "why" in cli ? withLocalEngine(cli.why, emulator) : withCli(cli, env, emulator);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`npm start: ${err.message}\n`);
    process.exitCode = 1;
  },
);
