/**
 * The local engine's own contract, where the CLI's behaviour is specific: the state between runs
 * as a stack export with secrets encrypted, pending operations left by a run that died (reported
 * by the next run, cleared by refresh, interrupted creates kept until cleared or imported), exit
 * codes, and the command that runs it by hand.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_ERROR, EXIT_EXPECT_NO_CHANGES, EXIT_OK } from "../support/local-engine/engine.ts";
import { SECRET_SIG, SIG } from "../support/local-engine/values.ts";
import {
  changesByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "programs", "single-server");
const CLI = join(ROOT, "test", "support", "local-engine", "cli.ts");

describe("runs that die, and what the next runs do", () => {
  let fx: ProgramFixture;

  /** Resolves once the emulator holds a server (bounded: 200 looks, 25 ms apart). */
  async function serverMade(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await fx.client.servers.list()).length > 0) return;
      await new Promise((ok) => setTimeout(ok, 25));
    }
    throw new Error("no server appeared");
  }
  beforeAll(async () => {
    // Slow enough that a create or an update is still in flight when the run is killed.
    fx = await startProgramFixture(PROJECT, {
      emulator: {
        lifecycle: {
          durations: {
            provisioning: 1500,
            starting: 1500,
            stopping: 1500,
            rebooting: 100,
            deleting: 100,
          },
        },
      },
    });
  });
  afterAll(async () => fx?.close());

  it("keeps the state a stack export with every secret encrypted", async () => {
    expectExit(await fx.engine.up(), EXIT_OK);
    const exported = fx.engine.export();
    expect(exported?.version).toBe(3);
    const provider = exported?.deployment.resources?.find(
      (r) => r["type"] === "pulumi:providers:pulumi-nodejs",
    );
    const inputs = provider?.["inputs"] as Record<string, Record<string, string>>;
    expect(inputs["cloudinfra:apiKey"]).toEqual({
      [SIG]: SECRET_SIG,
      ciphertext: expect.stringMatching(/^v1:/),
    });
    const key = exported?.deployment.resources?.find((r) => String(r["urn"]).endsWith("::key"));
    const outputs = key?.["outputs"] as Record<string, unknown>;
    expect(outputs["privateKey"]).toEqual({ [SIG]: SECRET_SIG, ciphertext: expect.any(String) });
    // Decrypted, the same state holds the values.
    const decrypted = fx.engine.resources().find((r) => r.urn.endsWith("::key"));
    expect(decrypted?.outputs?.["privateKey"]).toMatchObject({
      value: expect.stringContaining("PRIVATE KEY"),
    });
  });

  it("leaves a pending update when killed mid-update; the next up warns, refresh clears it", async () => {
    const renamed = fx.engineWith({ config: { "single:name": "solo-renamed" } });
    const killed = await renamed.up({
      onPendingOperation: (type, urn, { interrupt }) => {
        if (type === "updating" && urn.endsWith("::server")) interrupt();
      },
    });
    expectExit(killed, EXIT_ERROR);
    expect(
      fx.engine.pendingOperations().map((op) => [op.type, op.resource.urn.split("::").at(-1)]),
    ).toEqual([["updating", "server"]]);

    const preview = await renamed.preview();
    expect(preview.diagnostics.map((d) => d.message).join("\n")).toContain(
      "Attempting to deploy or update resources with 1 pending operations from previous deployment.",
    );
    const refresh = await renamed.refresh();
    expectExit(refresh, EXIT_OK);
    expect(fx.engine.pendingOperations()).toEqual([]);
    const up = await renamed.up();
    expectExit(up, EXIT_OK);
    expect((await fx.client.servers.list()).map((s) => s.user_defined_name)).toEqual([
      "solo-renamed",
    ]);
  });

  it("keeps an interrupted create through refresh until it is imported with the id it got", async () => {
    expectExit(await fx.engine.destroy(), EXIT_OK);
    const killed = await fx.engine.up({
      onPendingOperation: (type, urn, { interrupt }) => {
        // Die once the service has the server, while the provider waits for it to run.
        if (type === "creating" && urn.endsWith("::server")) void serverMade().then(interrupt);
      },
    });
    expectExit(killed, EXIT_ERROR);
    const pending = fx.engine.pendingOperations();
    expect(pending.map((op) => op.type)).toEqual(["creating"]);
    expectExit(await fx.engine.refresh(), EXIT_OK);
    expect(fx.engine.pendingOperations().map((op) => op.type)).toEqual(["creating"]);

    // The server exists (the create was sent before the engine died): import it under its URN.
    const [server] = await fx.client.servers.list();
    if (!server) throw new Error("the interrupted create made no server");
    const urn = pending[0]?.resource.urn ?? "";
    expectExit(
      await fx.engine.refresh({ importPendingCreates: { [urn]: String(server.id) } }),
      EXIT_OK,
    );
    expect(fx.engine.pendingOperations()).toEqual([]);
    const up = await fx.engine.up();
    expectExit(up, EXIT_OK);
    expect(changesByName(up)).toEqual({});
    expect(await fx.client.servers.list()).toHaveLength(1);
  });

  it("drops an interrupted create with clearPendingCreates", async () => {
    expectExit(await fx.engine.destroy(), EXIT_OK);
    await fx.engine.up({
      onPendingOperation: (type, _urn, { interrupt }) => {
        if (type === "creating") interrupt();
      },
    });
    expect(fx.engine.pendingOperations()).toHaveLength(1);
    expectExit(await fx.engine.refresh({ clearPendingCreates: true }), EXIT_OK);
    expect(fx.engine.pendingOperations()).toEqual([]);
  });

  it("fails `preview --expect-no-changes` with exit 7 on a change not yet applied", async () => {
    expectExit(await fx.engine.up(), EXIT_OK);
    expectExit(await fx.engine.preview({ expectNoChanges: true }), EXIT_OK);
    const changed = fx.engineWith({ config: { "single:name": "other" } });
    const preview = await changed.preview({ expectNoChanges: true });
    expectExit(preview, EXIT_EXPECT_NO_CHANGES);
    expect(changesByName(preview)).toEqual({ server: "update" });
    const digest = preview.digest();
    expect(digest.steps.map((s) => s.op)).toContain("update");
    expect(JSON.stringify(digest)).not.toContain(fx.emulator.apiKey);
  });
});

describe("the project's runtime options", () => {
  it("start the program's Node with `nodeargs`, split as a POSIX shell splits it", async () => {
    const fx = await startProgramFixture(join(ROOT, "test", "programs", "node-args"));
    try {
      const result = await fx.engine.up();
      expectExit(result, EXIT_OK);
      expect(result.outputs["execArgv"]).toEqual(["--max-old-space-size=123", "--title=node args"]);
    } finally {
      await fx.close();
    }
  });
});

describe("the stack outputs of a failed update", () => {
  // Issue 19, finding 9: a failed `up` emptied the stack's outputs in the state. The CLI keeps
  // them (deployment_executor.go, finalizing stack outputs): after an error, the old outputs
  // with those the program registered written over them.
  it("keep the old outputs the failed program did not register, and take those it did", async () => {
    const fx = await startProgramFixture(join(ROOT, "test", "programs", "failing-outputs"));
    try {
      expectExit(await fx.engine.up(), EXIT_OK);
      const failed = await fx.engineWith({ config: { "outputs:fail": "true" } }).up();
      expectExit(failed, EXIT_ERROR);
      const stack = fx.engine.resources().find((r) => r.type === "pulumi:pulumi:Stack");
      expect(stack?.outputs).toEqual({
        kept: "from the failed run",
        dropped: "only the run that worked exports this",
      });
      // The run that works again registers them whole.
      expectExit(await fx.engine.up(), EXIT_OK);
      expect(fx.engine.resources().find((r) => r.type === "pulumi:pulumi:Stack")?.outputs).toEqual({
        kept: "from the run that worked",
        dropped: "only the run that worked exports this",
      });
    } finally {
      await fx.close();
    }
  });
});

describe("npm run local-engine", () => {
  it("runs under Node's own type stripping and says how to use it", () => {
    const help = execFileSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
    expect(help).toContain("usage: npm run local-engine -- <preview|up|refresh|destroy|export>");
    const unknown = spawnSync(process.execPath, [CLI, "frobnicate"], { encoding: "utf8" });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('unknown operation "frobnicate"');
  });

  // Issue 19, finding 9: every `npm run local-engine` rebuilt dist/ (~3.5 s) though nothing
  // changed. Its build step now skips when dist/ is newer than everything the build reads.
  it("builds dist/ only when a source changed after the last build", () => {
    const build = () =>
      execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-stale"], {
        encoding: "utf8",
      });
    const stamp = join(ROOT, "dist", ".build-stamp");
    build();
    const built = statSync(stamp).mtimeMs;
    build();
    expect(statSync(stamp).mtimeMs, "nothing changed: no build").toBe(built);
    // A source newer than the build (its content unchanged) builds again.
    const source = join(ROOT, "src", "index.ts");
    const now = new Date();
    utimesSync(source, now, now);
    build();
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(built);
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toContain(
      '"local-engine": "node scripts/build.mjs --if-stale && node test/support/local-engine/cli.ts"',
    );
    // Every executable of package.json `bin` can be run directly once built (the CLI runs a
    // `pulumi-resource-cloudinfra` found on PATH so): a build that created it left it executable.
    const { bin } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(Object.keys(bin)).toContain("pulumi-resource-cloudinfra");
    for (const target of Object.values(bin)) {
      expect(statSync(join(ROOT, target)).mode & 0o111, `${target} executable`).toBe(0o111);
      expect(readFileSync(join(ROOT, target), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    }
  }, 120_000);
});
