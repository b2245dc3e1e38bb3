/**
 * The Server implementation against the emulator, in-process: real HTTPS, real lifecycle with
 * statuses that settle in tens of milliseconds (or only when told, in manual mode).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { NotFoundError } from "../../src/api/errors";
import { onHost, resetHost } from "../../src/provider";
import type { Props } from "../../src/resources/common";
import { diffServer } from "../../src/resources/server/model";
import { operations as serverOperations } from "../../src/resources/server/provider";
import {
  configureSessionFor,
  newSessionFor,
  startTestEmulator,
  type TestEmulator,
} from "../support/emulator";

const server = onHost(serverOperations);

const FAST = { provisioning: 20, starting: 20, stopping: 20, rebooting: 20, deleting: 20 };
const PROVIDER = "serialized shim";

let emulator: TestEmulator;
let api: CloudInfraClient;

beforeAll(async () => {
  emulator = await startTestEmulator({ lifecycle: { mode: "auto", durations: FAST } });
  configureSessionFor(emulator);
  api = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
});

afterEach(() => {
  emulator.admin.clearFaults();
  emulator.admin.setLifecycle({ mode: "auto", durations: FAST });
});

afterAll(async () => {
  await api.close();
  await resetHost();
  await emulator.close();
});

/** Inputs as the engine hands them to create/update: checked, with the serialized provider. */
async function inputs(args: Props): Promise<Props> {
  const checked = await server.check({}, { ...args, __provider: PROVIDER });
  expect(checked.failures ?? []).toEqual([]);
  return { ...checked.inputs, __provider: PROVIDER };
}

async function serversNamed(name: string) {
  return (await api.servers.list()).filter((s) => s.user_defined_name === name);
}

function createPosts(): number {
  return emulator.admin
    .requests(10_000)
    .filter((r) => r.method === "POST" && r.route === "/v1/servers").length;
}

async function createdError(
  promise: Promise<unknown>,
): Promise<Error & { id?: string; properties?: Props }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as Error & { id?: string; properties?: Props };
}

describe("create", () => {
  it("creates one running server and returns every input and output", async () => {
    const props = await inputs({ name: "create-1", planId: 1, image: "ubuntu-24.04" });
    const { id, outs } = await server.create(props);
    const live = await api.servers.get(id);
    expect(live.status).toBe("running");
    expect(outs).toMatchObject({
      name: "create-1",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: false,
      powerState: "running",
      serverId: Number(id),
      status: "running",
      ip: live.ip,
      os: "ubuntu-24.04",
      orderId: live.order_id,
      createdAt: live.created_at,
    });
    expect(await serversNamed("create-1")).toHaveLength(1);
    // What the engine stores diffs clean against the program's inputs.
    expect(diffServer(outs, props).changes).toBe(false);
  });

  it("stops the server after it first runs when powerState is stopped", async () => {
    const { id, outs } = await server.create(
      await inputs({
        name: "create-stopped",
        planId: 1,
        image: "debian-13",
        powerState: "stopped",
      }),
    );
    expect(outs).toMatchObject({ status: "stopped", powerState: "stopped" });
    expect((await api.servers.get(id)).status).toBe("stopped");
  });

  it("continues with the server a create made when its answer was lost, instead of making another", async () => {
    for (const lostAs of ["502", "reset"] as const) {
      const name = `lost-answer-${lostAs}`;
      emulator.admin.setFaults({
        seed: 1,
        rules: [
          { method: "POST", path: "/v1/servers", answer_lost: 1, answer_lost_as: lostAs, limit: 1 },
        ],
      });
      const postsBefore = createPosts();
      const { id, outs } = await server.create(
        await inputs({ name, planId: 2, image: "ubuntu-24.04" }),
      );
      const made = await serversNamed(name);
      expect(made.map((s) => String(s.id))).toEqual([id]);
      expect(createPosts() - postsBefore).toBe(1);
      expect(outs["status"]).toBe("running");
    }
  });

  it("continues with a lost create's server when powerState is stopped (reached only after the create)", async () => {
    const name = "lost-answer-stopped";
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers", answer_lost: 1, limit: 1 }],
    });
    const postsBefore = createPosts();
    const { id, outs } = await server.create(
      await inputs({ name, planId: 2, image: "ubuntu-24.04", powerState: "stopped" }),
    );
    expect((await serversNamed(name)).map((s) => String(s.id))).toEqual([id]);
    expect(createPosts() - postsBefore).toBe(1);
    expect(outs).toMatchObject({ status: "stopped", powerState: "stopped" });
  });

  it("sends the create once more when the failed request made nothing", async () => {
    // A 502 before the handler runs looks exactly like a lost answer to the client.
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers", status_502: 1, limit: 1 }],
    });
    const postsBefore = createPosts();
    const { id } = await server.create(
      await inputs({ name: "not-applied", planId: 1, image: "ubuntu-24.04" }),
    );
    expect((await serversNamed("not-applied")).map((s) => String(s.id))).toEqual([id]);
    expect(createPosts() - postsBefore).toBe(2);
  });

  it("records a server whose provisioning fails, and the next diff replaces it", async () => {
    emulator.admin.failProvisioning({ next: 1 });
    const props = await inputs({ name: "broken", planId: 1, image: "ubuntu-24.04" });
    const err = await createdError(server.create(props));
    const [made] = await serversNamed("broken");
    expect(made?.status).toBe("error");
    expect(err.id).toBe(String(made?.id));
    expect(err.properties).toMatchObject({
      status: "error",
      serverId: made?.id,
      __provider: PROVIDER,
    });
    expect(err.message).toContain(
      `server ${made?.id} went to status "error" before reaching "running"`,
    );
    expect(err.message).toContain("the next pulumi up replaces it");
    expect(diffServer(err.properties ?? {}, props)).toMatchObject({
      changes: true,
      replaces: ["status"],
    });
    // An errored server can still be deleted.
    await server.delete(String(made?.id), err.properties ?? {});
    await expect(api.servers.get(made?.id ?? 0)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("records a server still provisioning at the timeout, and the next update resumes it", async () => {
    emulator.admin.setLifecycle({ mode: "manual" });
    const props = await inputs({
      name: "slow",
      planId: 1,
      image: "ubuntu-24.04",
      powerState: "stopped",
      timeouts: { create: "300ms" },
    });
    const err = await createdError(server.create(props));
    expect(err.id).toMatch(/^\d+$/);
    expect(err.message).toMatch(
      new RegExp(
        `timed out waiting for server ${err.id} to reach "running" \\(create; last status "provisioning"; [0-9.]+m?s elapsed\\); raise timeouts.create \\(now 300ms\\) if it needs longer`,
      ),
    );
    expect(err.properties).toMatchObject({ status: "provisioning", __provider: PROVIDER });

    // The engine retries a partially created resource with an update.
    emulator.admin.setLifecycle({ mode: "auto", durations: FAST });
    const { outs } = await server.update(String(err.id), err.properties ?? {}, props);
    expect(outs).toMatchObject({ status: "stopped", powerState: "stopped" });
  });

  it("fails with the API's reason for bad ids, never showing the API key", async () => {
    const err = await createdError(
      server.create(await inputs({ name: "bad-plan", planId: 999, image: "ubuntu-24.04" })),
    );
    expect(err.message).toMatch(
      /^cloudinfra: creating Server "bad-plan" failed: POST \/v1\/servers failed: 400 invalid_request/,
    );
    expect(err.message).toContain("field plan_id");
    expect(err.message).not.toContain(emulator.apiKey);
    expect(err.id).toBeUndefined();
    expect(await serversNamed("bad-plan")).toEqual([]);
  });
});

describe("update", () => {
  it("renames, toggles the firewall and stops and starts in place", async () => {
    const first = await inputs({ name: "upd", planId: 1, image: "ubuntu-24.04" });
    const { id, outs } = await server.create(first);

    const renamed = await inputs({
      name: "upd-2",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: true,
    });
    const step1 = await server.update(id, outs, renamed);
    let live = await api.servers.get(id);
    expect([live.user_defined_name, live.firewall_enabled]).toEqual(["upd-2", true]);
    expect(step1.outs).toMatchObject({
      name: "upd-2",
      firewallEnabled: true,
      serverId: Number(id),
    });

    const stopped = { ...renamed, powerState: "stopped" };
    const step2 = await server.update(id, step1.outs ?? {}, stopped);
    live = await api.servers.get(id);
    expect(live.status).toBe("stopped");
    expect(step2.outs).toMatchObject({ powerState: "stopped", status: "stopped" });

    const running = { ...renamed, powerState: "running", firewallEnabled: false };
    const step3 = await server.update(id, step2.outs ?? {}, running);
    live = await api.servers.get(id);
    expect([live.status, live.firewall_enabled]).toEqual(["running", false]);
    expect(step3.outs).toMatchObject({ powerState: "running", status: "running" });
    // The same server all along.
    expect(await serversNamed("upd-2")).toHaveLength(1);
  });

  it("attaches and detaches listed security groups, leaving others alone", async () => {
    for (const name of ["sg-a", "sg-b", "sg-other"]) await api.firewall.create({ name, rules: [] });
    const groups = await api.firewall.listAll();
    const idOf = (n: string) => groups.find((g) => g.name === n)?.id ?? 0;
    const [a, b, other] = [idOf("sg-a"), idOf("sg-b"), idOf("sg-other")];

    const { id, outs } = await server.create(
      await inputs({ name: "sg", planId: 1, image: "ubuntu-24.04", securityGroupIds: [a] }),
    );
    await api.firewall.attachServer(other, id);
    const attached = async () =>
      (await api.servers.get(id)).security_groups.map((g) => g.id).sort((x, y) => x - y);

    const swapped = await server.update(
      id,
      outs,
      await inputs({ name: "sg", planId: 1, image: "ubuntu-24.04", securityGroupIds: [b] }),
    );
    expect(await attached()).toEqual([b, other].sort((x, y) => x - y));
    expect(swapped.outs).toMatchObject({ securityGroupIds: [b] });

    // A refresh does not count the group attached elsewhere as drift.
    const read = await server.read(id, swapped.outs);
    expect(read.inputs?.["securityGroupIds"]).toEqual([b]);
    expect(read.props).toEqual(swapped.outs);
  });

  it("names the pending action, the server and the setting when a start or stop times out", async () => {
    const props = await inputs({ name: "upd-timeout", planId: 1, image: "ubuntu-24.04" });
    const { id, outs } = await server.create(props);
    emulator.admin.setLifecycle({ mode: "manual" });
    const err = await createdError(
      server.update(id, outs, { ...props, powerState: "stopped", timeouts: { update: "300ms" } }),
    );
    expect(err.message).toMatch(
      new RegExp(
        `^cloudinfra: updating Server "upd-timeout" failed: timed out waiting for server ${id} to reach "stopped" \\(stop action [0-9a-f-]{36}; last status "stopping"; [0-9.]+m?s elapsed\\); raise timeouts.update \\(now 300ms\\)`,
      ),
    );
    // Nothing half-applied stays unnoticed: the refresh shows where the server is heading.
    const read = await server.read(id, outs);
    expect(read.inputs?.["powerState"]).toBe("stopped");
  });
});

describe("read", () => {
  it("shows a change made elsewhere as exactly that input, and a deleted server as gone", async () => {
    const props = await inputs({ name: "drift", planId: 1, image: "ubuntu-24.04", sshKeyIds: [] });
    const { id, outs } = await server.create(props);

    const clean = await server.read(id, outs);
    expect(clean.id).toBe(id);
    expect(diffServer(clean.props ?? {}, props).changes).toBe(false);

    await api.servers.update(id, { user_defined_name: "drift-renamed" });
    // The next refresh runs in a new provider process: nothing read before is reused.
    await newSessionFor(emulator);
    const drifted = await server.read(id, outs);
    expect(drifted.inputs).toEqual({ ...stripProvider(props), name: "drift-renamed" });
    const diff = diffServer(drifted.props ?? {}, props);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect(diffServer(drifted.props ?? {}, { ...props, name: "drift-renamed" }).changes).toBe(
      false,
    );

    await api.servers.manage(id, { action: "delete" });
    await server.delete(id, outs);
    await newSessionFor(emulator);
    expect(await server.read(id, outs)).toEqual({});
  });
});

describe("delete", () => {
  it("waits until the server answers 404, and succeeds for one already gone", async () => {
    const { id, outs } = await server.create(
      await inputs({ name: "del", planId: 1, image: "ubuntu-24.04", powerState: "stopped" }),
    );
    await server.delete(id, outs);
    await expect(api.servers.get(id)).rejects.toBeInstanceOf(NotFoundError);
    await server.delete(id, outs);
  });

  it("sends the delete action again while the server shows no sign of it, and says so in the end", async () => {
    const { id, outs } = await server.create(
      await inputs({ name: "del-flaky", planId: 1, image: "ubuntu-24.04" }),
    );
    // Two failures before the handler runs: nothing was applied, but the client cannot know.
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers/:id/management", status_502: 1, limit: 2 }],
    });
    await server.delete(id, outs);
    await expect(api.servers.get(id)).rejects.toBeInstanceOf(NotFoundError);

    const again = await server.create(
      await inputs({ name: "del-never", planId: 1, image: "ubuntu-24.04" }),
    );
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers/:id/management", status_502: 1 }],
    });
    const err = await createdError(server.delete(again.id, again.outs));
    expect(err.message).toMatch(
      /^cloudinfra: deleting Server "del-never" failed: POST \/v1\/servers\/\d+\/management failed: 502 unavailable: .*; the delete action was sent 3 times and each time server \d+ showed no sign of it \(status "running"\): run the command again$/,
    );
    expect(err.message).not.toContain("check for the resource");
    emulator.admin.clearFaults();
    await server.delete(again.id, again.outs);
  });

  it("lets a transition under way finish before deleting", async () => {
    // The delete action is refused (409) while the server provisions.
    emulator.admin.setLifecycle({ mode: "auto", durations: { provisioning: 400 } });
    const [created] = await api.servers.create({
      plan_id: 1,
      image: "ubuntu-24.04",
      user_defined_name: "del-busy",
    });
    const id = String(created?.id);
    await server.delete(id, { name: "del-busy" });
    await expect(api.servers.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

function stripProvider(props: Props): Props {
  const { __provider: _provider, ...rest } = props;
  return rest;
}
