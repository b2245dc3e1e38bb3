/**
 * The CLI as a user runs it: a separate process, its files, its output, its signals, and a
 * `kill -9` in the middle of a burst of writes.
 *
 * The CLI is compiled from the current sources into a private temp dir first (its import graph
 * only, a few seconds), so this file neither depends on a fresh `dist/` nor breaks when another
 * process rebuilds `dist/` while it runs.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { unsupportedNodeMessage } from "../../src/emulator/cli/node-version";
import { callEmulator } from "../support/emulator";

const root = join(__dirname, "..", "..");
let buildDir: string;
let cliPath: string;
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), "cloudinfra-cli-build-"));
  const config = {
    extends: join(root, "tsconfig.build.json"),
    compilerOptions: {
      rootDir: join(root, "src"),
      outDir: join(buildDir, "out"),
      declaration: false,
      sourceMap: false,
    },
    files: [join(root, "src", "emulator", "cli.ts")],
    include: [],
  };
  writeFileSync(join(buildDir, "tsconfig.json"), JSON.stringify(config));
  try {
    execFileSync(
      process.execPath,
      [
        join(root, "node_modules", "typescript", "bin", "tsc"),
        "-p",
        join(buildDir, "tsconfig.json"),
      ],
      {
        stdio: "pipe",
      },
    );
  } catch (error) {
    // Type errors elsewhere still emit JavaScript; only a missing CLI is fatal here.
    if (!existsSync(join(buildDir, "out", "emulator", "cli.js"))) throw error;
  }
  cliPath = join(buildDir, "out", "emulator", "cli.js");
}, 60_000);

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

afterAll(() => {
  if (buildDir !== undefined) rmSync(buildDir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cloudinfra-core-cli-"));
  dirs.push(dir);
  return dir;
}

interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnCli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [cliPath, ...args], {
    // The private build sits outside the repository; let it find the repository's packages.
    env: { ...process.env, NODE_PATH: join(root, "node_modules"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves once the CLI has printed its last export line (it writes emulator.json before). */
function ready(cli: Cli): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (cli.stdout().includes("export CLOUDINFRA_CA_CERT=")) {
        cli.child.stdout?.off("data", check);
        resolve();
      }
    };
    cli.child.stdout?.on("data", check);
    cli.exited.then(({ code }) =>
      reject(new Error(`CLI exited (${code}) before it was ready: ${cli.stderr()}`)),
    );
    check();
  });
}

interface Info {
  endpoint: string;
  caCertFile: string;
  apiKey: string;
  pid: number;
  dataDir: string | null;
}

function readInfo(dir: string): Info {
  return JSON.parse(readFileSync(join(dir, "emulator.json"), "utf8")) as Info;
}

describe("cloudinfra-emulator", () => {
  it("keeps its shebang so npm can link it as a bin", () => {
    expect(readFileSync(cliPath, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("writes emulator.json and prints the same as export lines; SIGTERM shuts it down cleanly", async () => {
    const dir = tempDir();
    const cli = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
    await ready(cli);
    const info = readInfo(dir);
    expect(info.pid).toBe(cli.child.pid);
    expect(info.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(info.caCertFile).toBe(join(dir, "ca.pem"));
    expect(cli.stdout()).toBe(
      `export CLOUDINFRA_ENDPOINT=${info.endpoint}\n` +
        `export CLOUDINFRA_API_KEY=${info.apiKey}\n` +
        `export CLOUDINFRA_CA_CERT=${info.caCertFile}\n`,
    );
    const agent = new Agent({ connect: { ca: readFileSync(info.caCertFile, "utf8") } });
    const answer = await callEmulator(agent, info.endpoint, info.apiKey, "GET", "/_emulator/info");
    expect(answer.body).toMatchObject({ endpoint: info.endpoint, pid: info.pid, data_dir: dir });
    await agent.close();
    expect(cli.stderr()).toContain(`console at ${info.endpoint}/_emulator/console/`);

    cli.child.kill("SIGTERM");
    expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, "emulator.json"))).toBe(false);
    expect(existsSync(join(dir, "emulator.lock"))).toBe(false);
  });

  describe("on Linux with glibc", () => {
    const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: unknown } })
      .header?.glibcVersionRuntime;
    const skip =
      process.platform !== "linux" || glibc === undefined
        ? "not Linux with glibc"
        : process.env["MALLOC_MMAP_THRESHOLD_"] !== undefined
          ? "MALLOC_MMAP_THRESHOLD_ is set in this test's environment"
          : undefined;
    if (skip !== undefined) console.log(`skipping the allocator tests: ${skip}`);
    const environ = (pid: number) =>
      readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .filter((entry) => entry.startsWith("MALLOC_MMAP_THRESHOLD_="));

    it.skipIf(skip !== undefined)(
      "runs under a fixed mmap threshold in the process it was started as (same pid, same arguments)",
      async () => {
        const dir = tempDir();
        const args = ["--data-dir", dir, "--port", "0", "--quiet"];
        const cli = spawnCli(args);
        await ready(cli);
        const pid = cli.child.pid ?? -1;
        expect(readInfo(dir).pid).toBe(pid);
        expect(environ(pid)).toEqual(["MALLOC_MMAP_THRESHOLD_=131072"]);
        expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(1, -1)).toEqual([
          cliPath,
          ...args,
        ]);
        cli.child.kill("SIGTERM");
        expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
      },
    );

    it.skipIf(skip !== undefined)("keeps a threshold the user set", async () => {
      const cli = spawnCli(["--memory", "--port", "0", "--quiet"], {
        MALLOC_MMAP_THRESHOLD_: "65536",
      });
      await ready(cli);
      expect(environ(cli.child.pid ?? -1)).toEqual(["MALLOC_MMAP_THRESHOLD_=65536"]);
      cli.child.kill("SIGTERM");
      expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
    });
  });

  it("refuses a bootstrap key of one character before starting, exit code 2", async () => {
    const cli = spawnCli(["--memory", "--port", "0"], { CLOUDINFRA_EMULATOR_API_KEY: "a" });
    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stderr().split("\n")[0]).toBe(
      "cloudinfra-emulator: CLOUDINFRA_EMULATOR_API_KEY must be at least 16 characters (got 1); a generated key is used when none is given",
    );
    expect(cli.stdout()).toBe("");
  });

  it("takes its key from CLOUDINFRA_EMULATOR_API_KEY and logs requests without it", async () => {
    const dir = tempDir();
    const key = "cik_fixed-key-from-the-environment";
    const cli = spawnCli(["--data-dir", dir, "--port", "0"], { CLOUDINFRA_EMULATOR_API_KEY: key });
    await ready(cli);
    const info = readInfo(dir);
    expect(info.apiKey).toBe(key);
    const agent = new Agent({ connect: { ca: readFileSync(info.caCertFile, "utf8") } });
    await callEmulator(agent, info.endpoint, key, "GET", "/v1/plans");
    await agent.close();
    cli.child.kill("SIGINT");
    await cli.exited;
    expect(cli.stderr()).toMatch(/ GET \/v1\/plans \d+ms acct=1 user=1 req_/);
    expect(cli.stderr()).not.toContain(key);
  });

  it("in --memory mode still prints a usable CA file, and removes it on exit", async () => {
    const cli = spawnCli(["--memory", "--port", "0", "--quiet"]);
    await ready(cli);
    const caFile = /export CLOUDINFRA_CA_CERT=(.+)\n/.exec(cli.stdout())?.[1] ?? "";
    expect(readFileSync(caFile, "utf8")).toContain("BEGIN CERTIFICATE");
    expect(readInfo(join(caFile, "..")).caCertFile).toBe(caFile);
    cli.child.kill("SIGTERM");
    expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
    expect(existsSync(caFile)).toBe(false);
  });

  it("refuses a data dir a running emulator holds, naming its pid", async () => {
    const dir = tempDir();
    // A restarted emulator (it only reads its database at start) holds the dir as well.
    const earlier = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
    await ready(earlier);
    earlier.child.kill("SIGTERM");
    await earlier.exited;
    const first = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
    await ready(first);
    const second = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toContain(
      `${dir} is in use by another emulator (pid ${first.child.pid})`,
    );
    // The refused one left the running emulator as it was: its emulator.json, and it answers.
    const info = readInfo(dir);
    expect(info.pid).toBe(first.child.pid);
    const agent = new Agent({ connect: { ca: readFileSync(info.caCertFile, "utf8") } });
    const answer = await callEmulator(agent, info.endpoint, info.apiKey, "GET", "/_emulator/info");
    await agent.close();
    expect(answer.body).toMatchObject({ pid: first.child.pid, data_dir: dir });
  });

  it("refuses a port another process holds, saying so and which flag picks another", async () => {
    const first = spawnCli(["--memory", "--port", "0", "--quiet"]);
    await ready(first);
    const port = new URL(/export CLOUDINFRA_ENDPOINT=(.+)\n/.exec(first.stdout())?.[1] ?? "").port;
    const second = spawnCli(["--memory", "--port", port, "--quiet"]);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toContain(
      `cloudinfra-emulator: port ${port} on 127.0.0.1 is in use by another process (another emulator?); pick another with --port N, or --port 0 for any free port`,
    );
  });

  it.runIf(process.platform === "linux")(
    "starts at once over the data dir of a killed emulator its parent has not reaped yet (a zombie)",
    async () => {
      const dir = tempDir();
      // `exec sleep` makes the emulator a child of a process that never waits for it: once
      // killed, it stays a zombie (with its old pid) until the sleep ends.
      const parent = spawn(
        "sh",
        [
          "-c",
          `"${process.execPath}" "${cliPath}" --data-dir "${dir}" --port 0 --quiet & exec sleep 60`,
        ],
        { env: { ...process.env, NODE_PATH: join(root, "node_modules") }, stdio: "ignore" },
      );
      children.push(parent);
      const emulatorPid = await new Promise<number>((resolve, reject) => {
        const found = () => {
          try {
            const pid = readInfo(dir).pid;
            watcher.close();
            resolve(pid);
          } catch {
            // emulator.json is not there yet.
          }
        };
        const watcher = watch(dir, found);
        found();
        parent.once("exit", () => reject(new Error("the shell exited early")));
      });
      process.kill(emulatorPid, "SIGKILL");
      // Bounded: the kernel makes a killed process a zombie within milliseconds.
      let state = "";
      for (let i = 0; i < 200 && state !== "Z"; i++) {
        state =
          /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${emulatorPid}/stat`, "utf8"))?.[1] ?? "";
        if (state !== "Z") await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(state).toBe("Z");

      const restarted = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
      await ready(restarted);
      expect(readInfo(dir).pid).toBe(restarted.child.pid);
      restarted.child.kill("SIGTERM");
      expect(await restarted.exited, restarted.stderr()).toEqual({ code: 0, signal: null });
    },
  );

  it("refuses unknown options with its usage and exit code 2", async () => {
    const cli = spawnCli(["--colour"]);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain("Usage: cloudinfra-emulator");
  });
});

describe("cloudinfra-emulator env (npm run -s emulator:env)", () => {
  /** A private temp dir, so that emulators other tests (or people) run are not found. */
  function isolated(): { tmp: string; env: Record<string, string> } {
    const tmp = tempDir();
    return { tmp, env: { TMPDIR: tmp } };
  }

  function env(args: string[], cwd: string, extra: Record<string, string>) {
    const run = spawnSync(process.execPath, [cliPath, "env", ...args], {
      cwd,
      env: { ...process.env, NODE_PATH: join(root, "node_modules"), ...extra },
      encoding: "utf8",
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  it("finds the emulator the README starts with --data-dir, from anywhere, and says which", async () => {
    const { tmp, env: extra } = isolated();
    const dir = tempDir();
    const cli = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"], extra);
    await ready(cli);
    const info = readInfo(dir);
    expect(info).toMatchObject({ dataDir: dir, pid: cli.child.pid });
    const elsewhere = tempDir();
    const found = env([], elsewhere, extra);
    expect(found).toMatchObject({ code: 0, stdout: cli.stdout() });
    expect(found.stderr).toBe(
      `emulator env: using the emulator at ${info.endpoint} (pid ${info.pid}, data dir ${dir})\n`,
    );
    // The npm script the README uses answers the same.
    const script = spawnSync(process.execPath, [join(root, "scripts", "emulator-env.mjs")], {
      cwd: root,
      env: { ...process.env, ...extra },
      encoding: "utf8",
    });
    expect({ code: script.status, stdout: script.stdout }).toEqual({
      code: 0,
      stdout: cli.stdout(),
    });
    expect(env(["--data-dir", dir], elsewhere, extra)).toMatchObject({
      code: 0,
      stdout: cli.stdout(),
    });
    expect(tmp).not.toBe("");
  });

  it("refuses an emulator.json whose process is gone, found or named", async () => {
    const { env: extra } = isolated();
    const dir = tempDir();
    const cli = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"], extra);
    await ready(cli);
    const { pid } = readInfo(dir);
    cli.child.kill("SIGKILL");
    await cli.exited;
    const stale = new RegExp(`names pid ${pid}, which is no longer running`);
    const found = env([], tempDir(), extra);
    expect(found.code).toBe(1);
    expect(found.stdout).toBe("");
    expect(found.stderr).toMatch(/no running emulator found/);
    expect(found.stderr).toMatch(stale);
    const named = env(["--data-dir", dir], tempDir(), extra);
    expect(named).toMatchObject({ code: 1, stdout: "" });
    expect(named.stderr).toMatch(stale);
  });

  it("will not guess between two running emulators, and lists them", async () => {
    const { env: extra } = isolated();
    const [one, two] = [tempDir(), tempDir()];
    const first = spawnCli(["--data-dir", one, "--port", "0", "--quiet"], extra);
    const second = spawnCli(["--memory", "--port", "0", "--quiet"], extra);
    await Promise.all([ready(first), ready(second)]);
    const both = env([], two, extra);
    expect(both).toMatchObject({ code: 1, stdout: "" });
    expect(both.stderr).toContain("2 emulators are running; choose one with");
    expect(both.stderr).toContain(`(pid ${first.child.pid}, data dir ${one})`);
    expect(both.stderr).toContain(`(pid ${second.child.pid}, in memory)`);
    expect(env(["--data-dir", one], two, extra)).toMatchObject({ code: 0, stdout: first.stdout() });
  });

  it("prefers the project's ./.emulator to emulators running elsewhere, and names those", async () => {
    const { env: extra } = isolated();
    const project = tempDir();
    const local = join(project, ".emulator");
    const elsewhere = tempDir();
    const mine = spawnCli(["--data-dir", local, "--port", "0", "--quiet"], extra);
    const other = spawnCli(["--data-dir", elsewhere, "--port", "0", "--quiet"], extra);
    await Promise.all([ready(mine), ready(other)]);
    const found = env([], project, extra);
    expect(found).toMatchObject({ code: 0, stdout: mine.stdout() });
    expect(found.stderr).toContain(`using the emulator at ${readInfo(local).endpoint}`);
    expect(found.stderr).toContain(`(pid ${other.child.pid}, data dir ${elsewhere})`);
  });
});

describe("cloudinfra-emulator --seed FILE", () => {
  const seeds = join(__dirname, "fixtures", "seed");

  it("creates the file's accounts before it announces readiness, and prints no key", async () => {
    const cli = spawnCli(["--memory", "--port", "0", "--seed", join(seeds, "every-kind.yaml")]);
    await ready(cli);
    const caFile = /export CLOUDINFRA_CA_CERT=(.+)\n/.exec(cli.stdout())?.[1] ?? "";
    const endpoint = /export CLOUDINFRA_ENDPOINT=(.+)\n/.exec(cli.stdout())?.[1] ?? "";
    const agent = new Agent({ connect: { ca: readFileSync(caFile, "utf8") } });
    const key = "acme-owner-key-0123456789";
    const servers = await callEmulator(agent, endpoint, key, "GET", "/v1/servers");
    await agent.close();
    expect(
      (servers.body as { user_defined_name: string; status: string }[]).map((s) => [
        s.user_defined_name,
        s.status,
      ]),
    ).toEqual([
      ["web-1", "running"],
      ["web-2", "stopped"],
      ["db-1", "provisioning"],
      ["old-1", "error"],
    ]);
    expect(cli.stderr()).toContain(
      `seeded account "Acme" (id 2) from ${join(seeds, "every-kind.yaml")}: 4 servers, 2 tags, 2 SSH keys, 1 security group, 1 role, 2 users`,
    );
    expect(cli.stderr()).not.toContain(key);
    expect(cli.stderr()).not.toContain("acme-ci-key");
    cli.child.kill("SIGTERM");
    expect(await cli.exited, cli.stderr()).toEqual({ code: 0, signal: null });
  });

  it("lists every problem of a bad file, exits 2 and leaves nothing behind", async () => {
    const dir = tempDir();
    const file = join(seeds, "mistakes.yaml");
    const cli = spawnCli(["--data-dir", dir, "--port", "0", "--quiet", "--seed", file]);
    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stdout()).toBe("");
    expect(cli.stderr()).toContain(
      `cloudinfra-emulator: ${file}: 9 problems; nothing was created\n`,
    );
    expect(cli.stderr()).toContain(
      `  ${file}:10:22: accounts[0].servers.web-1.plan: no plan named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?\n`,
    );
    expect(existsSync(join(dir, "emulator.json"))).toBe(false);
    // The data dir holds only the bootstrap administrator's account.
    const db = new DatabaseSync(join(dir, "state.db"), { readOnly: true });
    expect(db.prepare("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 1 });
    db.close();
  });

  it("names a seed file it cannot read", async () => {
    const cli = spawnCli(["--memory", "--port", "0", "--seed", join(seeds, "absent.yaml")]);
    expect(await cli.exited).toEqual({ code: 2, signal: null });
    expect(cli.stderr()).toContain(`--seed ${join(seeds, "absent.yaml")}: no such file`);
  });
});

describe("on a Node older than the package supports", () => {
  it("says which Node it needs, without a stack trace", () => {
    const preload = join(tempDir(), "old-node.cjs");
    writeFileSync(
      preload,
      'Object.defineProperty(process.versions, "node", { value: "20.11.1", configurable: true });\n',
    );
    const run = spawnSync(process.execPath, ["--require", preload, cliPath, "--memory"], {
      env: { ...process.env, NODE_PATH: join(root, "node_modules") },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "cloudinfra-emulator needs Node.js 22.19.0 or newer; this is Node.js v20.11.1. Install a newer Node (https://nodejs.org) and start it again.\n",
    );
  });

  it("asks for the Node that package.json's engines names", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      engines: { node: string };
    };
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(minimum).not.toBeNull();
    const [, major, minor, patch] = (minimum ?? []).map(Number);
    expect(unsupportedNodeMessage(`v${major}.${minor}.${patch}`)).toBeUndefined();
    const older =
      patch === 0 ? `v${major}.${Number(minor) - 1}.99` : `v${major}.${minor}.${Number(patch) - 1}`;
    expect(unsupportedNodeMessage(older)).toContain(
      `needs Node.js ${major}.${minor}.${patch} or newer`,
    );
  });
});

/**
 * How many times the `kill -9` test runs (each kills at another point of the burst). CI runs a
 * few; `CLOUDINFRA_KILL9_RUNS=20 npx vitest run test/emulator/core-cli.test.ts` is the full check.
 */
const KILL_RUNS = Number(process.env["CLOUDINFRA_KILL9_RUNS"] ?? "5");

describe("kill -9 during a burst of writes", () => {
  it.each(Array.from({ length: KILL_RUNS }, (_, i) => i + 1))(
    "run %i: loses no acknowledged write and restarts over a readable database",
    async (run) => {
      const dir = tempDir();
      const first = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
      await ready(first);
      const info = readInfo(dir);
      const agent = new Agent({
        connect: { ca: readFileSync(info.caCertFile, "utf8") },
        pipelining: 1,
      });
      // A different moment of the burst in each run.
      const killAfter = 20 + ((run * 37) % 80);

      const acknowledged: string[] = [];
      let killed = false;
      let next = 0;
      const writer = async () => {
        // Bounded: the kill comes after at most 100 acknowledgements, long before 2000 attempts.
        while (!killed && next < 2000) {
          const name = `burst-${next++}`;
          try {
            const answer = await callEmulator(
              agent,
              info.endpoint,
              info.apiKey,
              "POST",
              "/_emulator/accounts",
              { json: { name, api_key: `cik_${name}-0123456789abcdef` } },
            );
            if (answer.status === 201) acknowledged.push(name);
          } catch {
            // The connection died with the process: this write was never acknowledged.
          }
          if (!killed && acknowledged.length >= killAfter) {
            killed = true;
            first.child.kill("SIGKILL");
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, writer));
      expect((await first.exited).signal).toBe("SIGKILL");
      await agent.close();

      const second = spawnCli(["--data-dir", dir, "--port", "0", "--quiet"]);
      await ready(second);
      const restarted = readInfo(dir);
      expect(restarted.apiKey).toBe(info.apiKey);
      const agent2 = new Agent({ connect: { ca: readFileSync(restarted.caCertFile, "utf8") } });
      const accounts = await callEmulator(
        agent2,
        restarted.endpoint,
        restarted.apiKey,
        "GET",
        "/_emulator/accounts",
      );
      const names = new Set((accounts.body as { name: string }[]).map((a) => a.name));
      expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);
      expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
      // Each acknowledged owner's key survived too: a known non-bootstrap key is 403 here, not 401.
      for (const name of acknowledged.slice(-5)) {
        const answer = await callEmulator(
          agent2,
          restarted.endpoint,
          `cik_${name}-0123456789abcdef`,
          "GET",
          "/_emulator/info",
        );
        expect(answer.status).toBe(403);
      }
      await agent2.close();
      second.child.kill("SIGTERM");
      expect(await second.exited, second.stderr()).toEqual({ code: 0, signal: null });
      const db = new DatabaseSync(join(dir, "state.db"), { readOnly: true });
      expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      db.close();
      expect(readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
    },
  );
});
