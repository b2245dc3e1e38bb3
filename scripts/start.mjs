// `npm start`: the quick start end to end. Uses the emulator in .emulator/ (starting one, in the
// background, if none runs there), a local state backend inside the project (.pulumi-state/, no
// login, no passphrase prompt), runs `pulumi up --yes` through the official `pulumi` npm package
// (which installs the CLI on first use), and prints the outputs and the command that destroys it.
// Where the CLI cannot be had, it says so and what to do instead.
//
// Environment: CLOUDINFRA_START_DATA_DIR (the emulator's data dir, default .emulator),
// CLOUDINFRA_PULUMI (the command that runs the CLI, default `npx --yes pulumi`).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..");
const dataDir = resolve(ROOT, process.env.CLOUDINFRA_START_DATA_DIR ?? ".emulator");
const stateDir = join(ROOT, ".pulumi-state");
const [pulumiCommand, ...pulumiPrefix] = (
  process.env.CLOUDINFRA_PULUMI ?? "npx --yes pulumi"
).split(" ");
const say = (line) => process.stdout.write(`${line}\n`);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The emulator whose emulator.json is in `dataDir` and whose process still runs. */
function runningEmulator() {
  const file = join(dataDir, "emulator.json");
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, "utf8"));
  return Number.isInteger(info.pid) && alive(info.pid) ? info : undefined;
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
    if (child.exitCode !== null) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`the emulator did not start; see ${join(ROOT, ".emulator.log")}`);
}

function pulumi(args, env, capture = false) {
  return spawnSync(pulumiCommand, [...pulumiPrefix, ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit",
  });
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
  const version = pulumi(["version"], env, true);
  const last = (version.stdout ?? "").trim().split("\n").at(-1) ?? "";
  if (version.status !== 0 || !/^v?\d+\.\d+/.test(last)) {
    const why = (version.stderr || version.stdout || version.error?.message || "")
      .trim()
      .split("\n")
      .at(-1);
    say(
      [
        "",
        `The Pulumi CLI could not be run: \`${[pulumiCommand, ...pulumiPrefix, "version"].join(" ")}\` failed${why ? ` (${why})` : ""}.`,
        "The `pulumi` npm package downloads the CLI on first use, which needs network access to",
        "Pulumi's download site. To go on:",
        "  - install the CLI (https://www.pulumi.com/docs/install/) and run `npm start` again; or",
        "  - run the same program without the CLI, through the test suite's local engine:",
        `      npm run local-engine -- up --emulator ${join(dataDir, "emulator.json")}`,
        `The emulator keeps running at ${emulator.endpoint} (stop it with: kill ${emulator.pid}).`,
      ].join("\n"),
    );
    return 1;
  }
  say(`Pulumi CLI ${last}; state in ${stateDir} (a local backend, no login).`);
  const select = pulumi(["stack", "select", "--create", "dev"], env);
  if (select.status !== 0) return select.status ?? 1;
  const up = pulumi(["up", "--yes"], env);
  if (up.status !== 0) return up.status ?? 1;
  say("\nOutputs:");
  pulumi(["stack", "output"], env);
  say(
    [
      "",
      "To tear it down (the emulator keeps running):",
      `  eval "$(node scripts/emulator-env.mjs ${dataDir})"`,
      `  PULUMI_BACKEND_URL=file://${stateDir} PULUMI_CONFIG_PASSPHRASE= npx pulumi destroy --yes`,
      `Stop the emulator with: kill ${emulator.pid}`,
    ].join("\n"),
  );
  return 0;
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
