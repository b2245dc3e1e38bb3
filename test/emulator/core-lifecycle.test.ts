import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

const running: TestEmulator[] = [];
const dirs: string[] = [];

async function start(options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const emulator = await startTestEmulator({ extraRoutes: coreTestRoutes, ...options });
  running.push(emulator);
  return emulator;
}

afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface ServerView {
  id: number;
  status: string;
  status_date: string;
}

async function server(
  emulator: TestEmulator,
  id: number,
): Promise<{ status: number; body: ServerView }> {
  const answer = await emulator.call("GET", `/v1/_test/servers/${id}`);
  return { status: answer.status, body: answer.body as ServerView };
}

async function createServer(emulator: TestEmulator): Promise<number> {
  const created = await emulator.call("POST", "/v1/_test/servers");
  expect(created.body).toMatchObject({ status: "provisioning" });
  return (created.body as { id: number }).id;
}

/** Polls until the server has `status`, at most `attempts` times 20 ms apart. */
async function waitForStatus(
  emulator: TestEmulator,
  id: number,
  status: string,
  attempts = 100,
): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < attempts; i++) {
    const current = (await server(emulator, id)).body.status;
    if (seen.at(-1) !== current) seen.push(current);
    if (current === status) return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`server ${id} never reached ${status}; saw ${seen.join(" → ")}`);
}

describe("timed transitions", () => {
  it("moves provisioning → running and stopping → stopped after the configured durations", async () => {
    const emulator = await start({
      lifecycle: { durations: { provisioning: 150, stopping: 150 } },
    });
    const id = await createServer(emulator);
    const startedAt = Date.now();
    expect(await waitForStatus(emulator, id, "running")).toEqual(["provisioning", "running"]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(100);

    const stop = await emulator.call("POST", `/v1/_test/servers/${id}/stop`);
    expect(stop.body).toMatchObject({ action_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((await server(emulator, id)).body.status).toBe("stopping");
    expect(await waitForStatus(emulator, id, "stopped")).toEqual(["stopping", "stopped"]);
  });

  it("removes a deleted server when deleting completes", async () => {
    const emulator = await start({ lifecycle: { durations: { provisioning: 0, deleting: 50 } } });
    const id = await createServer(emulator);
    await waitForStatus(emulator, id, "running");
    await emulator.call("POST", `/v1/_test/servers/${id}/delete`);
    for (let i = 0; i < 100 && (await server(emulator, id)).status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await server(emulator, id)).status).toBe(404);
  });
});

describe("manual transitions", () => {
  it("holds transient statuses until advanced, and moves status_date with every change", async () => {
    const emulator = await start({ lifecycle: { mode: "manual", durations: { provisioning: 0 } } });
    const id = await createServer(emulator);
    const provisioning = (await server(emulator, id)).body;
    emulator.admin.setClock({ offset_ms: 60_000 });
    expect((await server(emulator, id)).body.status).toBe("provisioning");

    const advanced = await emulator.call("POST", "/_emulator/lifecycle/advance", {
      json: { server_id: id },
    });
    expect(advanced.body).toMatchObject({
      events: [{ server_id: id, from: "provisioning", to: "running" }],
    });
    const running = (await server(emulator, id)).body;
    expect(running.status).toBe("running");
    expect(
      Date.parse(running.status_date) - Date.parse(provisioning.status_date),
    ).toBeGreaterThanOrEqual(60_000);

    await emulator.call("POST", `/v1/_test/servers/${id}/reboot`);
    expect((await server(emulator, id)).body.status).toBe("rebooting");
    const conflict = await emulator.call("POST", `/v1/_test/servers/${id}/stop`);
    expect(conflict.status).toBe(409);
    await emulator.admin.advance({ server_id: id });
    expect((await server(emulator, id)).body.status).toBe("running");
  });

  it("advances only the account or server it is asked to", async () => {
    const emulator = await start({ lifecycle: { mode: "manual" } });
    const first = await createServer(emulator);
    const second = await createServer(emulator);
    await emulator.call("POST", "/_emulator/lifecycle/advance", { json: { server_id: second } });
    expect((await server(emulator, first)).body.status).toBe("provisioning");
    expect((await server(emulator, second)).body.status).toBe("running");
  });

  it("ends provisioning in error when told to fail the next one", async () => {
    const emulator = await start({ lifecycle: { mode: "manual" } });
    const failing = await emulator.call("POST", "/_emulator/lifecycle/fail-provisioning", {
      json: { next: 1 },
    });
    expect(failing.body).toMatchObject({ provisioning_failures: { next: 1 } });
    const doomed = await createServer(emulator);
    const fine = await createServer(emulator);
    await emulator.admin.advance();
    expect((await server(emulator, doomed)).body.status).toBe("error");
    expect((await server(emulator, fine)).body.status).toBe("running");
  });

  it("switching to auto completes transitions that are already due", async () => {
    const emulator = await start({ lifecycle: { mode: "manual", durations: { provisioning: 0 } } });
    const id = await createServer(emulator);
    const timing = await emulator.call("PUT", "/_emulator/lifecycle", { json: { mode: "auto" } });
    expect(timing.body).toMatchObject({ mode: "auto" });
    expect(await waitForStatus(emulator, id, "running")).toContain("running");
  });
});

describe("restarts", () => {
  it("completes a transition that fell due while the emulator was down", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-core-lifecycle-"));
    dirs.push(dataDir);
    // Manual mode holds a transition that is already due, as if the emulator had stopped.
    const first = await start({
      dataDir,
      lifecycle: { mode: "manual", durations: { provisioning: 0 } },
    });
    const id = await createServer(first);
    await first.close();
    const second = await start({ dataDir, lifecycle: { mode: "auto" } });
    expect(await waitForStatus(second, id, "running")).toContain("running");
  });
});
