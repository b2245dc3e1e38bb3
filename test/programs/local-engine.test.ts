/**
 * The local engine's own contract, where the CLI's behaviour is specific: the state between runs
 * as a stack export with secrets encrypted, pending operations left by a run that died (reported
 * by the next run, cleared by refresh, interrupted creates kept until cleared or imported), exit
 * codes, and the command that runs it by hand.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localEngineCli, writeEmulatorFile } from "../support/local-engine/by-hand.ts";
import { EXIT_ERROR, EXIT_EXPECT_NO_CHANGES, EXIT_OK } from "../support/local-engine/engine.ts";
import type { EngineEvent } from "../support/local-engine/events.ts";
import { SECRET_SIG, SIG, UNKNOWN } from "../support/local-engine/values.ts";
import {
  changesByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  SLOW_PROVISIONING,
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

describe("npm run local-engine as a person sees it", () => {
  // Issue 23, findings 1, 2, 8, 9: the engine printed nothing until the end and threw the
  // program's and the provider's output away; Ctrl-C left the stack locked; a bare --config key
  // was ignored; a preview printed Pulumi's unknown marker; up --refresh counted changes twice.
  const CHATTY = join(ROOT, "test", "programs", "chatty");
  let fx: ProgramFixture;
  let dir: string;
  let emulatorFile: string;
  beforeAll(async () => {
    // A server takes 1.5 s to provision: an `up` lasts seconds, and Ctrl-C finds it in flight.
    fx = await startProgramFixture(CHATTY, {
      emulator: { lifecycle: { durations: SLOW_PROVISIONING } },
      config: { greeting: "hi" },
    });
    dir = mkdtempSync(join(tmpdir(), "local-engine-cli-"));
    emulatorFile = writeEmulatorFile(dir, fx.emulator);
  });
  afterAll(async () => {
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The CLI on the chatty project; each stdout line with the time it arrived, and the end. */
  function cli(args: string[], state: string, options: { detached?: boolean } = {}) {
    const run = localEngineCli(
      [...args, "--cwd", CHATTY, "--state", join(dir, state), "--emulator", emulatorFile],
      { env: { CLOUDINFRA_LOG: "debug" }, ...options },
    );
    const lines: { at: number; text: string }[] = [];
    createInterface({ input: run.child.stdout }).on("line", (text) => {
      lines.push({ at: performance.now(), text });
    });
    const ended = run.done.then((r) => ({ ...r, at: performance.now() }));
    return { run, lines, ended };
  }

  it("prints each step as it happens, and the program's and the provider's output as diagnostics, also in --event-log", async () => {
    const events = join(dir, "up.events");
    const { lines, ended } = cli(
      ["up", "--non-interactive", "--config", "greeting=hi", "--event-log", events],
      "talk.json",
    );
    const end = await ended;
    expect(end.status, end.stderr).toBe(0);
    const text = lines.map((l) => l.text);
    expect(text[0]).toBe("Updating (dev):");
    // The server's row is printed when its create starts, 1.5 s at least before it is done.
    const creating = lines.find((l) => /^ \+ {2}\S+:Server server creating \(0s\)$/.test(l.text));
    const created = lines.find((l) => /^ \+ {2}\S+:Server server created \(\d+s\)$/.test(l.text));
    if (creating === undefined || created === undefined) throw new Error(text.join("\n"));
    expect(created.at - creating.at).toBeGreaterThanOrEqual(1000);
    expect(end.at - (lines[1]?.at ?? end.at)).toBeGreaterThanOrEqual(1500);
    // The program's console.log and console.error, and each CLOUDINFRA_LOG=debug line of the
    // provider, are diagnostics of the stack; a log line on the server is the server's.
    const diagnostics = text.slice(text.indexOf("Diagnostics:"));
    expect(diagnostics[1]).toBe("  pulumi:pulumi:Stack (cloudinfra-chatty-dev):");
    expect(diagnostics).toContain("    hi from console.log");
    expect(diagnostics).toContain("    and from console.error");
    expect(diagnostics.some((l) => /^ {4}cloudinfra \S+ POST \/v1\/servers -> 201 /.test(l))).toBe(
      true,
    );
    const serverHeader = diagnostics.indexOf("  pulumi-nodejs:dynamic/cloudinfra:Server (server):");
    expect(diagnostics[serverHeader + 1]).toMatch(/^ {4}server \d+ is up$/);
    // The bare --config key is the project's (cloudinfra-chatty:greeting).
    expect(text).toContain('    greeting  : "hi"');
    expect(text).toContain("    privateKey: [secret]");
    expect(text.slice(text.indexOf("Resources:"))).toEqual([
      "Resources:",
      "    + 4 created",
      "",
      expect.stringMatching(/^Duration: \d+s$/),
    ]);

    const logged = readFileSync(events, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as EngineEvent);
    const diags = logged.flatMap((e) => ("diagnosticEvent" in e ? [e.diagnosticEvent] : []));
    expect(diags).toContainEqual({
      prefix: "",
      message: "hi from console.log\n",
      color: "never",
      severity: "info",
      streamID: expect.any(Number),
    });
    expect(diags).toContainEqual({
      prefix: "",
      message: "and from console.error\n",
      color: "never",
      severity: "info#err",
      streamID: expect.any(Number),
    });
    expect(diags).toContainEqual(
      expect.objectContaining({
        severity: "info#err",
        message: expect.stringMatching(/^cloudinfra \S+ POST \/v1\/servers -> 201 /),
      }),
    );
    expect(diags).toContainEqual(
      expect.objectContaining({
        urn: expect.stringMatching(/::server$/),
        message: expect.stringMatching(/^server \d+ is up\n$/),
      }),
    );
    // Each diagnostic is logged where it happened: the program's lines before the server's step
    // ends, the server's own line after.
    const at = (pred: (e: EngineEvent) => boolean) => logged.findIndex(pred);
    const serverDone = at(
      (e) => "resOutputsEvent" in e && e.resOutputsEvent.metadata.urn.endsWith("::server"),
    );
    expect(
      at((e) => "diagnosticEvent" in e && e.diagnosticEvent.message === "hi from console.log\n"),
    ).toBeLessThan(serverDone);

    // `stack output`, as the quick start's `pulumi stack output privateKey --show-secrets`.
    const shown = await localEngineCli([
      "stack",
      "output",
      "privateKey",
      "--show-secrets",
      "--cwd",
      CHATTY,
      "--state",
      join(dir, "talk.json"),
    ]).done;
    expect(shown.stdout).toMatch(
      /^-----BEGIN [A-Z ]*PRIVATE KEY-----\n[\s\S]+-----END [A-Z ]*PRIVATE KEY-----\n$/,
    );
    const table = await localEngineCli([
      "stack",
      "output",
      "--cwd",
      CHATTY,
      "--state",
      join(dir, "talk.json"),
    ]).done;
    expect(table.stdout).toMatch(
      /^Current stack outputs \(3\):\n {4}OUTPUT {6}VALUE\n {4}greeting {4}hi\n {4}privateKey {2}\[secret\]\n {4}serverId {4}\d+\n$/,
    );

    // Drift on the tag and the server: `up --refresh` refreshes first, then updates; each change
    // is counted once.
    const [tag] = await fx.client.tags.list();
    if (!tag) throw new Error("no tag");
    await fx.client.tags.update(tag.id, { name: "chatty", color: "#000000" });
    const refreshed = cli(["up", "--refresh", "--non-interactive"], "talk.json");
    const again = await refreshed.ended;
    expect(again.status, again.stderr).toBe(0);
    const out = refreshed.lines.map((l) => l.text);
    expect(out.filter((l) => /:Tag tag /.test(l))).toEqual([
      expect.stringMatching(/^ ~ {2}\S+:Tag tag refreshing \(0s\)$/),
      expect.stringMatching(/^ ~ {2}\S+:Tag tag refresh \([\d.]+s\) \[diff: ~color\]$/),
      expect.stringMatching(/^ ~ {2}\S+:Tag tag updating \(0s\) \[diff: ~color\]$/),
      expect.stringMatching(/^ ~ {2}\S+:Tag tag updated \([\d.]+s\) \[diff: ~color\]$/),
    ]);
    expect(out.slice(out.indexOf("Resources:"), -2)).toEqual([
      "Resources:",
      "    ~ 1 updated",
      "    3 unchanged",
    ]);

    const destroyed = await cli(["destroy", "--non-interactive"], "talk.json").ended;
    expect(destroyed.stdout).toContain("Resources:\n    - 4 deleted\n");
  }, 120_000);

  it("previews an output not yet known as output<string>, never Pulumi's unknown marker", async () => {
    const { ended } = cli(["preview", "--non-interactive"], "preview.json");
    const preview = await ended;
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stdout).toContain("Previewing update (dev):\n");
    expect(preview.stdout).toContain("    serverId  : output<string>\n");
    expect(preview.stdout).not.toContain(UNKNOWN);
    expect(preview.stdout).toContain("Resources:\n    + 4 to create\n");
  }, 60_000);

  it("cancels on Ctrl-C: the step in flight finishes and is saved, the lock goes, the next up creates the rest once", async () => {
    const up = cli(["up", "--non-interactive"], "ctrl-c.json", { detached: true });
    const creating = new Promise<void>((ok) => {
      createInterface({ input: up.run.child.stdout }).on("line", (line) => {
        if (/:Server server creating/.test(line)) ok();
      });
    });
    await creating;
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    process.kill(-(up.run.child.pid ?? 0), "SIGINT");
    const canceled = await up.ended;
    expect(canceled.status).toBe(1);
    expect(canceled.stdout).toContain(
      "^C received; cancelling. If you would like to terminate immediately, press ^C again.\n" +
        "Note that terminating immediately may lead to orphaned resources and other inconsistencies.\n",
    );
    expect(canceled.stdout).toMatch(/^ \+ {2}\S+:Server server created \(\d+s\)$/m);
    expect(canceled.stdout).not.toMatch(/:Tag tag created/);
    const lockDir = join(dir, ".pulumi", "locks", "organization", "cloudinfra-chatty", "dev");
    expect(readdirSync(lockDir)).toEqual([]);

    const next = await cli(["up", "--non-interactive"], "ctrl-c.json").ended;
    expect(next.status, next.stderr).toBe(0);
    expect(next.stdout).toContain("Resources:\n    + 1 created\n    3 unchanged\n");
    expect((await fx.client.servers.list()).map((s) => s.user_defined_name)).toEqual(["chatty"]);
    expect((await fx.client.tags.list()).map((t) => t.name)).toEqual(["chatty"]);
    expect(await fx.client.keys.list()).toHaveLength(1);
  }, 120_000);

  it("terminates on a second Ctrl-C: stops at once, keeps the create in flight as pending, releases the lock", async () => {
    const up = cli(["up", "--non-interactive"], "terminate.json", { detached: true });
    const group = -(up.run.child.pid ?? 0);
    // Ctrl-C once the server's create is in flight, and again once the first one is answered.
    let sent = 0;
    createInterface({ input: up.run.child.stdout }).on("line", (line) => {
      const cue = sent === 0 ? /:Server server creating \(0s\)$/ : /^\^C received; cancelling\./;
      if (sent < 2 && cue.test(line)) {
        sent++;
        process.kill(group, "SIGINT");
      }
    });
    const terminated = await up.ended;
    expect(terminated.status).toBe(1);
    expect(terminated.stdout).toContain("^C received; terminating\n");
    expect(terminated.stdout).toMatch(/^ \+ {2}\S+:Server server creating \(interrupted\)$/m);
    const lockDir = join(dir, ".pulumi", "locks", "organization", "cloudinfra-chatty", "dev");
    expect(readdirSync(lockDir)).toEqual([]);
    const state = fx.engineWith({ stateFile: join(dir, "terminate.json") });
    expect(
      state.pendingOperations().map((op) => [op.type, op.resource.urn.split("::").at(-1)]),
    ).toEqual([["creating", "server"]]);
  }, 120_000);
});
