/**
 * Runs that die in the middle of a create: the provider host killed with SIGKILL while a server
 * provisions (the engine lives on and records the step as failed), and the whole engine stopped
 * while a create is in flight (a pending operation stays in the state). The next `up` (after the
 * `refresh` the CLI asks for) must neither make a second server silently nor lose track of the
 * first: it adopts what it can prove is its own, or fails naming the server's id and `adoptId`.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT_OK, type RunResult } from "../support/local-engine/engine.ts";
import {
  expectExit,
  type ProgramFixture,
  ROOT,
  SLOW_PROVISIONING,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "programs", "single-server");
let fx: ProgramFixture;

beforeEach(async () => {
  fx = await startProgramFixture(PROJECT, {
    emulator: { lifecycle: { durations: SLOW_PROVISIONING } },
  });
});
afterEach(async () => fx?.close());

/** Resolves once the emulator holds a server (bounded: 200 looks, 25 ms apart). */
async function serverMade(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const [server] = await fx.client.servers.list();
    if (server) return server.id;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error("no server appeared");
}

/**
 * The run after an interruption: exactly one server in the end, tracked by the state, whether
 * the provider adopted it or refused naming it (then the user adopts it with `adoptId`).
 */
async function recovers(serverId: number, next: RunResult): Promise<void> {
  const servers = await fx.client.servers.list();
  expect(
    servers.map((s) => s.id),
    "no second server, silent or not",
  ).toEqual([serverId]);
  if (next.exitCode !== EXIT_OK) {
    const message = next.diagnostics.map((d) => d.message).join("\n");
    expect(message).toContain(String(serverId));
    expect(message).toContain("adoptId");
    const adopting = fx.engineWith({ config: { "single:adoptServer": String(serverId) } });
    expectExit(await adopting.up(), EXIT_OK);
  }
  const tracked = fx.engine.resources().filter((r) => r.type.endsWith(":Server"));
  expect(tracked.map((r) => r.id)).toEqual([String(serverId)]);
  // As with the CLI, an interrupted create stays a pending operation until a refresh clears it.
  expectExit(await fx.engine.refresh({ clearPendingCreates: true }), EXIT_OK);
  expect(fx.engine.pendingOperations()).toEqual([]);
  expect(
    fx.engine
      .resources()
      .filter((r) => r.type.endsWith(":Server"))
      .map((r) => r.id),
  ).toEqual([String(serverId)]);
  expectExit(await fx.engine.destroy(), EXIT_OK);
  expect(await fx.client.servers.list()).toEqual([]);
}

describe("a create interrupted", () => {
  it("by the provider host killed while the server provisions", async () => {
    let serverId = 0;
    const killed = await fx.engine.up({
      onPendingOperation: (type, urn, { killProviderHost }) => {
        if (type !== "creating" || !urn.endsWith("::server")) return;
        void serverMade().then((id) => {
          serverId = id;
          killProviderHost();
        });
      },
    });
    expect(killed.exitCode).not.toBe(EXIT_OK);
    expect(serverId).toBeGreaterThan(0);
    await fx.engine.refresh();
    await recovers(serverId, await fx.engine.up());
  });

  it("by the engine stopped while the create is in flight", async () => {
    let serverId = 0;
    const killed = await fx.engine.up({
      onPendingOperation: (type, urn, { interrupt }) => {
        if (type !== "creating" || !urn.endsWith("::server")) return;
        void serverMade().then((id) => {
          serverId = id;
          interrupt();
        });
      },
    });
    expect(killed.exitCode).not.toBe(EXIT_OK);
    expect(fx.engine.pendingOperations().map((op) => op.type)).toEqual(["creating"]);
    await fx.engine.refresh();
    await recovers(serverId, await fx.engine.up());
  });
});
