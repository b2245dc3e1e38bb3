/**
 * Issue 19, findings 2 and 7, as a user met them: two `npm run local-engine -- up` of the quick
 * start at once on one emulator once both ran, made a server each and orphaned one. The local
 * engine now locks the stack as the CLI's file backend does (`pkg/backend/diy/lock.go`): the
 * second run is refused at once naming the holder, a lock left by a killed run says the command
 * that clears it, and the `Resources:` summary counts what happened.
 */
import { mkdirSync, readdirSync, watch } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  localEngineCli as localEngine,
  writeEmulatorFile,
} from "../support/local-engine/by-hand.ts";
import { EXIT_ERROR, EXIT_OK } from "../support/local-engine/engine.ts";
import { expectExit, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

/** Resolves when a lock file (`*.json`) appears in `dir` (which must exist). */
function lockAppears(dir: string): Promise<void> {
  return new Promise((ok) => {
    const watcher = watch(dir, () => {
      if (!readdirSync(dir).some((f) => f.endsWith(".json"))) return;
      watcher.close();
      ok();
    });
  });
}

describe("the stack lock", () => {
  let fx: ProgramFixture;
  let emulatorFile: string;
  let stateArgs: string[];

  beforeAll(async () => {
    // Slow enough that the first run is still going when the second starts.
    fx = await startProgramFixture(ROOT, {
      emulator: {
        lifecycle: {
          durations: {
            provisioning: 1500,
            starting: 1500,
            stopping: 100,
            rebooting: 100,
            deleting: 100,
          },
        },
      },
    });
    emulatorFile = writeEmulatorFile(join(fx.engine.options.stateFile, ".."), fx.emulator);
    stateArgs = ["--state", fx.engine.options.stateFile, "--emulator", emulatorFile];
  });
  afterAll(async () => fx?.close());

  it("refuses a second up of the stack at once, naming the holder; one server, none orphaned", async () => {
    let firstDone = false;
    const first = fx.engine.up().then((r) => {
      firstDone = true;
      return r;
    });
    const second = await localEngine(["up", ...stateArgs]).done;
    expect(firstDone, "the second run waited for the first").toBe(false);
    expect(second.status).toBe(EXIT_ERROR);
    expect(second.stderr).toContain(
      "the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `npm run local-engine -- cancel --state ",
    );
    expect(second.stderr).toMatch(
      new RegExp(
        `/\\.pulumi/locks/organization/cloudinfra-quickstart/dev/[0-9a-f-]{36}\\.json: created by ${userInfo().username}@${hostname()} \\(pid ${process.pid}, up\\) at \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expectExit(await first, EXIT_OK);
    expect(await fx.client.servers.list()).toHaveLength(1);
    expect(fx.engine.resources().filter((r) => r.type.endsWith(":Server"))).toHaveLength(1);
    // The lock went with the run: the next one goes ahead.
    expectExit(await fx.engine.refresh(), EXIT_OK);
  });

  it("reports a killed run's lock with the command that clears it; a preview is not locked", async () => {
    const lockDir = join(
      fx.engine.options.stateFile,
      "..",
      ".pulumi",
      "locks",
      "organization",
      "cloudinfra-quickstart",
      "dev",
    );
    mkdirSync(lockDir, { recursive: true });
    const locked = lockAppears(lockDir);
    const killed = localEngine(["destroy", ...stateArgs], { detached: true });
    await locked;
    // kill -9 of the run's whole process group, as a closed terminal or the OOM killer would.
    process.kill(-(killed.child.pid ?? 0), "SIGKILL");
    await killed.done;

    const refused = await fx.engine.up();
    expectExit(refused, EXIT_ERROR);
    const message = refused.diagnostics.find((d) => d.severity === "error")?.message ?? "";
    expect(message).toMatch(
      /\(pid \d+, destroy\) at .*; that process is no longer running \(killed\?\): `npm run local-engine -- cancel --state [^`]+` clears it/,
    );
    expect(refused.steps).toEqual([]);

    // The CLI's preview takes no lock (diy/backend.go locks Update, Refresh, Destroy only).
    expectExit(await fx.engine.preview(), EXIT_OK);

    const command = /`npm run local-engine -- (cancel [^`]+)`/.exec(message)?.[1] ?? "";
    const cancel = await localEngine(command.split(" ")).done;
    expect(cancel).toMatchObject({ status: 0 });
    expect(cancel.stdout).toMatch(/^deleted the lock of .*\(pid \d+, destroy\) from /);
    expect(cancel.stdout).toContain("The currently running update for 'dev' has been canceled!");
    expectExit(await fx.engine.up(), EXIT_OK);
    expect(await fx.client.servers.list()).toHaveLength(1);
  }, 90_000);

  it("counts a failed step as errored, not as done", async () => {
    // Another tag named "web" makes the quick start's tag fail: 3 created (stack, key, server; the
    // default provider is an internal step, counted by no summary of the CLI), 1 errored.
    expectExit(await fx.engine.destroy(), EXIT_OK);
    await fx.client.tags.create({ name: "web", color: "#000000" });
    const result = await fx.engine.up();
    expectExit(result, EXIT_ERROR);
    expect(result.summary).toEqual({ create: 3 });
    expect(result.errored).toBe(1);
    const cli = await localEngine(["up", ...stateArgs]).done;
    // The summary counts the rows that show an error: the tag's. The SDK's echo of it on the
    // stack ("resource web [...] failed to register", with a stack trace) is not shown, each
    // error once (display.ts repeatsResourceError), so it is not counted either; the CLI shows
    // and counts it (2 errored), as the local engine's README says.
    expect(cli.stdout).toContain("Resources:\n    3 unchanged\n    1 errored\n");
  }, 90_000);
});
