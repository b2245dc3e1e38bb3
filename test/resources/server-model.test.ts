import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionError, NotFoundError, UnauthorizedError } from "../../src/api/errors";
import { onHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import {
  diffServer,
  formatDuration,
  fromApi,
  inputsOf,
  type ServerInputs,
  storedInputs,
  timeoutMs,
  toApi,
} from "../../src/resources/server/model";
import { operations as serverOperations } from "../../src/resources/server/provider";
import { ServerWaitError, waitForServerStatus } from "../../src/resources/server/wait";
import { pollIntervalMs, ServerWatch } from "../../src/resources/server/watch";
import { wireServer } from "../support/wire-objects";

const implementation = onHost(serverOperations);
const check = (news: Record<string, unknown>) => implementation.check({}, news);

const server = wireServer;

const INPUTS: ServerInputs = {
  name: "web",
  planId: 3,
  image: "ubuntu-24.04",
  firewallEnabled: false,
  powerState: "running",
};

describe("check", () => {
  it("fills the defaults and normalises ids so equivalent programs store the same inputs", async () => {
    const result = await check({
      name: "web",
      planId: "3",
      image: "ubuntu-24.04",
      sshKeyIds: ["12", 5],
      __provider: "shim",
    });
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({
      name: "web",
      planId: 3,
      image: "ubuntu-24.04",
      sshKeyIds: [5, 12],
      firewallEnabled: false,
      powerState: "running",
    });
  });

  it("names the property at fault for each bad input", async () => {
    const result = await check({
      name: " ",
      planId: "abc",
      image: "",
      sshKeyIds: [5, 5],
      powerState: "paused",
      timeouts: { create: "10 minutes" },
    });
    const byProperty = Object.fromEntries(
      (result.failures ?? []).map((f) => [f.property, f.reason]),
    );
    expect(Object.keys(byProperty).sort()).toEqual(
      ["image", "name", "planId", "powerState", "sshKeyIds", "timeouts"].sort(),
    );
    expect(byProperty["planId"]).toContain('"abc"');
    expect(byProperty["image"]).toContain("must not be empty");
    expect(byProperty["sshKeyIds"]).toContain("duplicates");
    expect(byProperty["powerState"]).toContain('"running" or "stopped"');
    expect(byProperty["timeouts"]).toMatch(/^timeouts\.create: expected a duration/);
  });

  it("refuses a missing required input and a zero or unknown-unit timeout", async () => {
    const result = await check({
      name: "web",
      image: "ubuntu-24.04",
      timeouts: { delete: "0s", update: "5d" },
    });
    const reasons = (result.failures ?? []).map((f) => `${f.property}: ${f.reason}`);
    expect(reasons).toContain("planId: planId: is required");
    expect(reasons.some((r) => r.includes("timeouts.delete: must be longer than zero"))).toBe(true);
    expect(
      reasons.some((r) => r.startsWith("timeouts: timeouts.update: expected a duration")),
    ).toBe(true);
  });

  it("passes preview unknowns through without failures, whatever the property's type", async () => {
    const result = await check({
      name: UNKNOWN,
      planId: UNKNOWN,
      image: "ubuntu-24.04",
      sshKeyIds: [UNKNOWN, 3],
      securityGroupIds: UNKNOWN,
      timeouts: { create: UNKNOWN },
    });
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toMatchObject({
      name: UNKNOWN,
      planId: UNKNOWN,
      sshKeyIds: [UNKNOWN, 3],
      securityGroupIds: UNKNOWN,
      powerState: "running",
    });
  });
});

describe("diff", () => {
  const olds = { ...fromApi(server(), INPUTS), __provider: "old shim" };

  it("sees no change between the stored outputs and the same inputs (the shim is ignored)", () => {
    expect(diffServer(olds, { ...INPUTS, __provider: "new shim" }).changes).toBe(false);
  });

  it("changes name, power state, firewall and security groups in place", () => {
    for (const change of [
      { name: "web-2" },
      { powerState: "stopped" },
      { firewallEnabled: true },
      { securityGroupIds: [4] },
      { timeouts: { create: "20m" } },
    ]) {
      const result = diffServer(olds, { ...INPUTS, ...change });
      expect(result, JSON.stringify(change)).toMatchObject({ changes: true, replaces: [] });
    }
  });

  it("replaces the server for a new plan, image or SSH key list", () => {
    expect(diffServer(olds, { ...INPUTS, planId: 4 }).replaces).toEqual(["planId"]);
    expect(diffServer(olds, { ...INPUTS, image: "debian-13" }).replaces).toEqual(["image"]);
    expect(diffServer(olds, { ...INPUTS, sshKeyIds: [1] }).replaces).toEqual(["sshKeyIds"]);
  });

  it("treats an absent list like an empty one", () => {
    expect(diffServer(olds, { ...INPUTS, sshKeyIds: [], securityGroupIds: [] }).changes).toBe(
      false,
    );
  });

  it("shows unknown values as changes, and as a replacement where the field forces one", () => {
    expect(diffServer(olds, { ...INPUTS, planId: UNKNOWN })).toMatchObject({
      changes: true,
      replaces: ["planId"],
    });
    expect(diffServer(olds, { ...INPUTS, sshKeyIds: UNKNOWN }).replaces).toEqual(["sshKeyIds"]);
    expect(diffServer(olds, { ...INPUTS, name: UNKNOWN })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("replaces a server whose provisioning failed", () => {
    const broken = fromApi(server({ status: "error" }), INPUTS);
    expect(diffServer(broken, { ...INPUTS })).toMatchObject({
      changes: true,
      replaces: ["status"],
    });
  });
});

describe("fromApi and the live inputs", () => {
  it("maps the answer to camelCase outputs that carry every input, and nothing other resources change", () => {
    const outs = fromApi(
      server({
        tags: [
          { id: 9, name: "prod", color: "#ff0000", account_id: 1, created_by_user: 1 },
          { id: 2, name: "web", color: "#00ff00", data: "x", account_id: 1, created_by_user: 1 },
        ],
      }),
      { ...INPUTS, sshKeyIds: [5], timeouts: { create: "20m" } },
    );
    expect(outs).toEqual({
      name: "web",
      planId: 3,
      image: "ubuntu-24.04",
      sshKeyIds: [5],
      firewallEnabled: false,
      powerState: "running",
      timeouts: { create: "20m" },
      serverId: 42,
      ip: "10.0.0.42",
      status: "running",
      statusDate: "2026-01-01T10:00:03Z",
      os: "ubuntu-24.04",
      orderId: 7,
      vmId: 5042,
      createdAt: "2026-01-01T10:00:00Z",
    });
    expect(inputsOf(outs)).toEqual({
      name: "web",
      planId: 3,
      image: "ubuntu-24.04",
      sshKeyIds: [5],
      firewallEnabled: false,
      powerState: "running",
      timeouts: { create: "20m" },
    });
  });

  it("never holds undefined (the host cannot send it) when the service leaves fields empty", () => {
    const outs = fromApi(
      server({ ip: null, vm_id: null, order_id: null, status_date: null, data: [] }),
      {},
    );
    expect(JSON.parse(JSON.stringify(outs))).toEqual(outs);
    expect(outs).not.toHaveProperty("ip");
    expect(outs).not.toHaveProperty("image");
  });

  it("reports power state, name, plan and firewall as they are live", () => {
    const live = inputsOf(
      fromApi(
        server({ status: "stopping", user_defined_name: "renamed", firewall_enabled: true }),
        INPUTS,
      ),
    );
    expect(live).toMatchObject({ powerState: "stopped", name: "renamed", firewallEnabled: true });
    const errored = inputsOf(fromApi(server({ status: "error" }), INPUTS));
    expect(errored["powerState"]).toBe("running");
  });

  it("keeps listed groups that are attached, drops detached ones, ignores others", () => {
    const group = (id: number) => ({
      id,
      name: `g${id}`,
      account_id: 1,
      created_by_user: 1,
      created_at: "2026-01-01T10:00:00Z",
      updated_at: "2026-01-01T10:00:00Z",
      rules: [],
    });
    const outs = fromApi(server({ security_groups: [group(1), group(8)] }), {
      ...INPUTS,
      securityGroupIds: [1, 2],
    });
    expect(outs["securityGroupIds"]).toEqual([1]);
    expect(outs).not.toHaveProperty("attachedSecurityGroupIds");
  });

  it("reads stored inputs field by field, skipping what no longer validates", () => {
    expect(
      storedInputs({ name: "web", planId: "x", powerState: "stopped", status: "running" }),
    ).toEqual({
      name: "web",
      powerState: "stopped",
    });
  });

  it("creates exactly one server with the wire's names", () => {
    expect(toApi({ ...INPUTS, securityGroupIds: [4], firewallEnabled: true })).toEqual({
      plan_id: 3,
      image: "ubuntu-24.04",
      user_defined_name: "web",
      security_group_ids: [4],
      firewall_enabled: true,
      quantity: 1,
    });
  });
});

describe("durations", () => {
  it("parses Go-style durations", async () => {
    const create = (text: string) => timeoutMs({ timeouts: { create: text } }, "create");
    expect(create("90s")).toBe(90_000);
    expect(create("10m")).toBe(600_000);
    expect(create("1h30m")).toBe(5_400_000);
    expect(create("500ms")).toBe(500);
    for (const text of ["10", "", "1d"]) {
      const result = await check({ ...INPUTS, timeouts: { create: text } });
      expect((result.failures ?? []).map((f) => f.reason)).toEqual([
        expect.stringMatching(/^timeouts\.create: expected a duration/),
      ]);
    }
  });

  it("formats elapsed times", () => {
    expect(formatDuration(850)).toBe("850ms");
    expect(formatDuration(1_234)).toBe("1.2s");
    expect(formatDuration(65_000)).toBe("1m05s");
    expect(formatDuration(3_723_000)).toBe("1h02m03s");
  });
});

describe("waitForServerStatus", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A server whose status follows a script of [from time (ms), status | Error]. */
  function scripted(script: [number, string | Error][]) {
    const polls: number[] = [];
    const get = async () => {
      const now = Date.now();
      polls.push(now);
      let current: string | Error = "unknown";
      for (const [at, value] of script) if (now >= at) current = value;
      if (current instanceof Error) throw current;
      return server({ status: current });
    };
    const watch = new ServerWatch({ get, list: async () => [await get()] });
    return { watch, polls };
  }

  async function settle<T>(promise: Promise<T>, ms: number): Promise<T> {
    const caught = promise.catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(ms);
    const result = await caught;
    if (result instanceof Error) throw result;
    return result as T;
  }

  it("follows clamp(elapsed × 0.1, 250 ms, 10 s)", () => {
    expect(pollIntervalMs(0)).toBe(250);
    expect(pollIntervalMs(2_000)).toBe(250);
    expect(pollIntervalMs(5_000)).toBe(500);
    expect(pollIntervalMs(60_000)).toBe(6_000);
    expect(pollIntervalMs(100_000)).toBe(10_000);
    expect(pollIntervalMs(3_600_000)).toBe(10_000);
  });

  it("notices a change within about 10% of the elapsed time without flooding the API", async () => {
    const { watch, polls } = scripted([
      [0, "provisioning"],
      [60_000, "running"],
    ]);
    const done = waitForServerStatus(watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 600_000,
    });
    const result = await settle(done, 70_000);
    expect(result.status).toBe("running");
    const seenAt = polls.at(-1) ?? 0;
    expect(seenAt).toBeGreaterThanOrEqual(60_000);
    expect(seenAt).toBeLessThanOrEqual(60_000 * 1.1 + 250);
    // The create's answer was the first look: the first poll comes after one interval.
    expect(polls[0]).toBe(250);
    expect(polls[1]).toBe(500);
    // 40 polls cover the first 10 s at 250 ms; the rest grow geometrically.
    expect(polls.length).toBeLessThan(80);
  });

  it("fails on status error, naming action, server, target, last status and elapsed time", async () => {
    const { watch } = scripted([
      [0, "starting"],
      [1_000, "error"],
    ]);
    const done = waitForServerStatus(watch, 42, {
      action: "start",
      actionId: "a-1",
      target: "running",
      deadlineAt: 60_000,
    });
    const err = await settle(done, 5_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerWaitError);
    expect((err as ServerWaitError).reason).toBe("error");
    expect((err as Error).message).toBe(
      'server 42 went to status "error" before reaching "running" (start action a-1; last status "error"; 1.0s elapsed)',
    );
  });

  it("fails at once on a status that can no longer reach the target", async () => {
    const { watch, polls } = scripted([
      [0, "provisioning"],
      [500, "stopping"],
    ]);
    const done = waitForServerStatus(watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 60_000,
    });
    const err = await settle(done, 2_000).catch((e: unknown) => e);
    expect((err as ServerWaitError).reason).toBe("unreachable");
    expect((err as Error).message).toContain(
      'server 42 is "stopping" and can no longer reach "running"',
    );
    expect(polls).toEqual([250, 500]);
  });

  it("keeps waiting while an accepted action has not shown yet", async () => {
    const { watch } = scripted([
      [0, "running"],
      [300, "stopping"],
      [1_000, "stopped"],
    ]);
    const done = waitForServerStatus(watch, 42, {
      action: "stop",
      target: "stopped",
      deadlineAt: 60_000,
    });
    expect((await settle(done, 2_000)).status).toBe("stopped");
  });

  it("times out at the deadline, saying which setting to raise", async () => {
    const { watch, polls } = scripted([[0, "starting"]]);
    const done = waitForServerStatus(watch, 42, {
      action: "start",
      actionId: "a-2",
      target: "running",
      deadlineAt: 90_000,
      timeoutSetting: "timeouts.update (now 90s)",
    });
    const err = await settle(done, 100_000).catch((e: unknown) => e);
    expect((err as ServerWaitError).reason).toBe("timeout");
    expect((err as Error).message).toBe(
      'timed out waiting for server 42 to reach "running" (start action a-2; last status "starting"; 1m30s elapsed); raise timeouts.update (now 90s) if it needs longer',
    );
    expect(polls.at(-1)).toBe(90_000);
  });

  it("rides out transient poll failures and fails at once on others", async () => {
    const reset = new ConnectionError({
      method: "GET",
      path: "/v1/servers/42",
      causeCode: "ECONNRESET",
      requestSent: true,
      mayHaveBeenApplied: false,
    });
    const { watch } = scripted([
      [0, reset],
      [1_000, "running"],
    ]);
    const ok = waitForServerStatus(watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 60_000,
    });
    expect((await settle(ok, 2_000)).status).toBe("running");

    const denied = new UnauthorizedError({ status: 401, method: "GET", path: "/v1/servers/42" });
    const bad = scripted([[0, denied]]);
    const failing = waitForServerStatus(bad.watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 60_000,
    });
    await expect(settle(failing, 1_000)).rejects.toBe(denied);
    expect(bad.polls).toHaveLength(1);
  });

  it("treats 404 as the end of a delete and as a failure otherwise", async () => {
    const gone = new NotFoundError({ status: 404, method: "GET", path: "/v1/servers/42" });
    const deleting = scripted([
      [0, "deleting"],
      [400, gone],
    ]);
    const done = waitForServerStatus(deleting.watch, 42, {
      action: "delete",
      target: "gone",
      deadlineAt: 60_000,
    });
    expect(await settle(done, 1_000)).toBeUndefined();

    const vanished = scripted([[0, gone]]);
    const failing = waitForServerStatus(vanished.watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 60_000,
    });
    const err = await settle(failing, 1_000).catch((e: unknown) => e);
    expect((err as ServerWaitError).reason).toBe("disappeared");
  });

  it("stops when aborted, without waiting for the next poll", async () => {
    const { watch, polls } = scripted([[0, "provisioning"]]);
    const controller = new AbortController();
    const done = waitForServerStatus(watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 600_000,
      signal: controller.signal,
    });
    const caught = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(20_000);
    const before = polls.length;
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    const err = await caught;
    expect((err as ServerWaitError).reason).toBe("aborted");
    expect(polls.length).toBe(before);
  });
});
