/**
 * The plugin found as the CLI finds it (`GetPluginPath`): `pulumi-resource-cloudinfra` on `PATH`
 * (what `npm install` puts in `node_modules/.bin`) is executed directly, before the package's
 * `plugin/` folder, which is run through `run-plugin` when `PULUMI_IGNORE_AMBIENT_PLUGINS` is set
 * or nothing is on `PATH`. Which process served the run is read from the kernel (`/proc`) while
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

describe("the plugin on PATH", () => {
  it(
    "with node_modules/.bin on PATH, the plugin is pulumi-resource-cloudinfra executed directly (the CLI's warning says so); with PULUMI_IGNORE_AMBIENT_PLUGINS=1 it is run-plugin on the package's plugin/ folder; the result is the same",
    async () => {
      const viaRunPlugin = fx.engineWith({
        env: programEnv({
          PATH: `${BIN}${delimiter}${BARE_PATH}`,
          PULUMI_IGNORE_AMBIENT_PLUGINS: "1",
        }),
      });
      const first = await upWatching(viaRunPlugin);
      expectExit(first.up, EXIT_OK);
      expect(first.up.plugins.map((p) => p.source)).toEqual(["package"]);
      const [folderLaunch] = first.up.plugins;
      expect(folderLaunch?.file).toBe(process.execPath);
      expect(folderLaunch?.args.slice(1)).toEqual([join(ROOT, "plugin"), "127.0.0.1:1"]);
      expect(folderLaunch?.args[0]).toMatch(
        /@pulumi[/\\]pulumi[/\\]cmd[/\\]run-plugin[/\\]index\.js$/,
      );
      // The process that served: the kernel's command line of that pid during the run.
      const servedByFolder = first.seen.get(folderLaunch?.pid ?? -1);
      expect(servedByFolder?.slice(1)).toEqual(folderLaunch?.args);
      expect(first.up.diagnostics.filter((d) => d.message.includes("from $PATH"))).toEqual([]);
      const viaFolder = { changes: changesByName(first.up), objects: objects(viaRunPlugin) };
      expect(viaFolder.changes).toEqual({ env: "create", ops: "create", fw: "create" });

      expectExit(await viaRunPlugin.destroy(), EXIT_OK);
      await expectNothingLeft(fx.client);

      const ambient = fx.engineWith({
        env: programEnv({ PATH: `${BIN}${delimiter}${BARE_PATH}` }),
      });
      const second = await upWatching(ambient);
      expectExit(second.up, EXIT_OK);
      expect(
        second.up.plugins.map((p) => ({ source: p.source, file: p.file, args: p.args })),
      ).toEqual([{ source: "ambient", file: AMBIENT, args: ["127.0.0.1:1"] }]);
      // `#!/usr/bin/env node`: the kernel runs Node with the file found on PATH, no run-plugin.
      const servedByPath = second.seen.get(second.up.plugins[0]?.pid ?? -1);
      expect(servedByPath?.slice(1)).toEqual([AMBIENT, "127.0.0.1:1"]);
      expect(servedByPath?.join(" ")).not.toContain("run-plugin");
      expect(second.up.diagnostics).toContainEqual({
        severity: "warning",
        message: `using pulumi-resource-cloudinfra from $PATH at ${AMBIENT}`,
      });
      expect(
        { changes: changesByName(second.up), objects: objects(ambient) },
        report(second.up),
      ).toEqual(viaFolder);

      expectExit(await ambient.destroy(), EXIT_OK);
      await expectNothingLeft(fx.client);
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
    expect(
      findPlugin("cloudinfra", PROJECT, [], { ...env, PULUMI_IGNORE_AMBIENT_PLUGINS: "1" }),
    ).toEqual({ source: "package", folder: join(ROOT, "plugin") });
    // An empty PULUMI_IGNORE_AMBIENT_PLUGINS does not opt out (the CLI reads a non-empty value).
    expect(
      findPlugin("cloudinfra", PROJECT, [], { ...env, PULUMI_IGNORE_AMBIENT_PLUGINS: "" }).source,
    ).toBe("ambient");
    expect(findPlugin("cloudinfra", PROJECT, [], { PATH: join(dir, "empty") })).toEqual({
      source: "package",
      folder: join(ROOT, "plugin"),
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
