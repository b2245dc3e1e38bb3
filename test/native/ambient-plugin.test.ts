/**
 * The plugin found as the CLI finds it (`GetPluginPath`) and started as `execPlugin` starts it:
 * `pulumi-resource-cloudinfra` on `PATH` (what `npm install` puts in `node_modules/.bin`) is
 * executed directly, before the package's `plugin/` folder, whose own `pulumi-resource-cloudinfra`
 * is executed directly too; a folder holding only `PulumiPlugin.yaml` runs through `run-plugin`. Which process served the run is read from the kernel (`/proc`) while
 * the run is in flight, not taken from the engine's word.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_OK, type LocalEngine, type RunResult } from "../support/local-engine/engine.ts";
import { findPlugin, lookPath } from "../support/local-engine/plugin-providers.ts";
import {
  changesByName,
  expectExit,
  expectNothingLeft,
  type ProgramFixture,
  programEnv,
  ROOT,
  report,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "drift");
const RUN_PLUGIN_PROJECT = join(ROOT, "test", "native", "programs", "run-plugin");
const BIN = join(ROOT, "node_modules", ".bin");
const AMBIENT = join(BIN, "pulumi-resource-cloudinfra");
const TIMEOUT = 120_000;

/** PATH without our `node_modules/.bin` (npx puts it there), so each case chooses. */
const BARE_PATH = (process.env["PATH"] ?? "")
  .split(delimiter)
  .filter((d) => d !== BIN)
  .join(delimiter);

let fx: ProgramFixture;
beforeAll(async () => {
  fx = await startProgramFixture(PROJECT, { config: { "drift:version": "1" } });
});
afterAll(async () => fx?.close());

/** The command lines of this process's children, as the kernel has them. */
function childCommandLines(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (after the parenthesised command name) is the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      out.set(Number(entry), argv);
    } catch {
      // The process ended while it was read.
    }
  }
  return out;
}

/** `up` with `env`, noting the command line of every plugin process alive during the run. */
async function upWatching(
  engine: LocalEngine,
): Promise<{ up: RunResult; seen: Map<number, string[]> }> {
  const seen = new Map<number, string[]>();
  const up = await engine.up({
    onPendingOperation: () => {
      for (const [pid, argv] of childCommandLines()) seen.set(pid, argv);
    },
  });
  return { up, seen };
}

/** The stack's objects as a user compares two runs: type, name and inputs, no ids. */
function objects(engine: LocalEngine) {
  return engine
    .resources()
    .filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"))
    .map((r) => ({ type: r.type, urn: r.urn, inputs: r.inputs }))
    .sort((a, b) => a.urn.localeCompare(b.urn));
}

describe("how the plugin starts", () => {
  it(
    "the package's plugin/ folder runs its pulumi-resource-cloudinfra directly (PULUMI_IGNORE_AMBIENT_PLUGINS=1); node_modules/.bin on PATH runs it directly too (the CLI's warning says so); a folder with only PulumiPlugin.yaml runs through run-plugin; the result is the same",
    async () => {
      /** `up` then `destroy`; the launch, the kernel's command line of its pid, the outcome. */
      async function upAndDestroy(engine: LocalEngine) {
        const { up, seen } = await upWatching(engine);
        expectExit(up, EXIT_OK);
        expect(up.plugins, report(up)).toHaveLength(1);
        const [launch] = up.plugins;
        const outcome = { changes: changesByName(up), objects: objects(engine) };
        expectExit(await engine.destroy(), EXIT_OK);
        await expectNothingLeft(fx.client);
        return { up, launch, served: seen.get(launch?.pid ?? -1), outcome };
      }

      const folder = await upAndDestroy(
        fx.engineWith({
          env: programEnv({
            PATH: `${BIN}${delimiter}${BARE_PATH}`,
            PULUMI_IGNORE_AMBIENT_PLUGINS: "1",
          }),
        }),
      );
      const inFolder = join(ROOT, "plugin", "pulumi-resource-cloudinfra");
      expect(folder.launch).toMatchObject({ source: "package", file: inFolder });
      expect(folder.launch?.args).toEqual(["127.0.0.1:1"]);
      // `#!/usr/bin/env node`: the kernel runs Node with the file, no run-plugin.
      expect(folder.served?.slice(1)).toEqual([inFolder, "127.0.0.1:1"]);
      expect(folder.up.diagnostics.filter((d) => d.message.includes("from $PATH"))).toEqual([]);
      expect(folder.outcome.changes).toEqual({ env: "create", ops: "create", fw: "create" });

      const ambient = await upAndDestroy(
        fx.engineWith({ env: programEnv({ PATH: `${BIN}${delimiter}${BARE_PATH}` }) }),
      );
      expect(ambient.launch).toMatchObject({ source: "ambient", file: AMBIENT });
      expect(ambient.launch?.args).toEqual(["127.0.0.1:1"]);
      expect(ambient.served?.slice(1)).toEqual([AMBIENT, "127.0.0.1:1"]);
      expect(ambient.up.diagnostics).toContainEqual({
        severity: "warning",
        message: `using pulumi-resource-cloudinfra from $PATH at ${AMBIENT}`,
      });
      expect(ambient.outcome).toEqual(folder.outcome);

      const stateDir = mkdtempSync(join(tmpdir(), "cloudinfra-run-plugin-"));
      const yamlOnly = await upAndDestroy(
        fx.engineWith({
          projectDir: RUN_PLUGIN_PROJECT,
          stateFile: join(stateDir, "dev.json"),
          env: programEnv({ PATH: `${BIN}${delimiter}${BARE_PATH}` }),
        }),
      );
      expect(yamlOnly.launch).toMatchObject({ source: "project", file: process.execPath });
      expect(yamlOnly.launch?.args.slice(1)).toEqual([
        join(RUN_PLUGIN_PROJECT, "plugin"),
        "127.0.0.1:1",
      ]);
      expect(yamlOnly.launch?.args[0]).toMatch(
        /@pulumi[/\\]pulumi[/\\]cmd[/\\]run-plugin[/\\]index\.js$/,
      );
      expect(yamlOnly.served?.slice(1)).toEqual(yamlOnly.launch?.args);
      expect(yamlOnly.outcome.changes).toEqual(folder.outcome.changes);
      rmSync(stateDir, { recursive: true, force: true });
    },
    TIMEOUT,
  );
});

describe("where the local engine finds a plugin (GetPluginPath's order)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "cloudinfra-plugin-path-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function executable(path: string): string {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o755);
    return path;
  }

  it("a project's plugins.providers path first, then PATH unless PULUMI_IGNORE_AMBIENT_PLUGINS, then the npm package's plugin/ folder", () => {
    const onPath = executable(join(dir, "bin", "pulumi-resource-cloudinfra"));
    const local = executable(join(dir, "local", "pulumi-resource-cloudinfra"));
    const folderOnly = join(dir, "folder-only");
    mkdirSync(folderOnly);
    writeFileSync(join(folderOnly, "PulumiPlugin.yaml"), "runtime: nodejs\n");
    const env = { PATH: `${join(dir, "empty")}${delimiter}${join(dir, "bin")}` };
    const project = [{ name: "cloudinfra", path: join(dir, "local") }];

    expect(findPlugin("cloudinfra", PROJECT, project, env)).toEqual({
      source: "project",
      executable: local,
    });
    expect(
      findPlugin("cloudinfra", PROJECT, [{ name: "cloudinfra", path: folderOnly }], env),
    ).toEqual({ source: "project", folder: folderOnly });
    expect(() =>
      findPlugin("cloudinfra", PROJECT, [{ name: "cloudinfra", path: join(dir, "nothing") }], env),
    ).toThrow(
      /plugins\.providers in Pulumi\.yaml: .*nothing \(plugin cloudinfra\) has neither an executable pulumi-resource-cloudinfra nor a PulumiPlugin\.yaml/,
    );
    expect(findPlugin("cloudinfra", PROJECT, [], env)).toEqual({
      source: "ambient",
      executable: onPath,
    });
    const inFolder = join(ROOT, "plugin", "pulumi-resource-cloudinfra");
    expect(
      findPlugin("cloudinfra", PROJECT, [], { ...env, PULUMI_IGNORE_AMBIENT_PLUGINS: "1" }),
    ).toEqual({ source: "package", executable: inFolder });
    // An empty PULUMI_IGNORE_AMBIENT_PLUGINS does not opt out (the CLI reads a non-empty value).
    expect(
      findPlugin("cloudinfra", PROJECT, [], { ...env, PULUMI_IGNORE_AMBIENT_PLUGINS: "" }).source,
    ).toBe("ambient");
    expect(findPlugin("cloudinfra", PROJECT, [], { PATH: join(dir, "empty") })).toEqual({
      source: "package",
      executable: inFolder,
    });
  });

  it("PATH lookup as Go's exec.LookPath: a file that is not executable is skipped, a relative folder never matches", () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    writeFileSync(join(plain, "pulumi-resource-x"), "#!/bin/sh\n");
    chmodSync(join(plain, "pulumi-resource-x"), 0o644);
    const later = executable(join(dir, "later", "pulumi-resource-x"));
    expect(
      lookPath("pulumi-resource-x", { PATH: `${plain}${delimiter}${join(dir, "later")}` }),
    ).toBe(later);
    expect(lookPath("pulumi-resource-x", { PATH: plain })).toBeUndefined();
    // Relative to the working directory (the repository under vitest), where the file does exist.
    expect(process.cwd()).toBe(ROOT);
    expect(lookPath("pulumi-resource-cloudinfra", { PATH: "node_modules/.bin" })).toBeUndefined();
  });
});
