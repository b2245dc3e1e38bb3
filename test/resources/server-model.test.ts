import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionError, NotFoundError, UnauthorizedError } from "../../src/api/errors";
import { formatDuration } from "../../src/lib/duration";
import { onHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { matchesRequest, wireRequest } from "../../src/resources/kind";
import {
  DEFAULT_TIMEOUTS,
  deadlineFor,
  diffServer,
  FIELDS,
  fromApi,
  INPUT_FIELDS,
  liveInputs,
  osOf,
  powerStateOf,
  type ServerInputs,
  ServerInputsSchema,
  storedInputs,
  toApi,
  withPowerStateDefault,
} from "../../src/resources/server/model";
import { definition, operations as serverOperations } from "../../src/resources/server/provider";
import {
  pollIntervalMs,
  ServerWaitError,
  ServerWatch,
  waitForServerStatus,
} from "../../src/resources/server/watch";
import { checkOf, failuresOf } from "../support/input-rules";
import { wireServer } from "../support/wire-objects";

const implementation = onHost(serverOperations);
const check = (news: Record<string, unknown>) => implementation.check({}, news);

const server = wireServer;

/** An operation's limit and the setting its wait names, from {@link deadlineFor} at time 0. */
function limitOf(inputs: Partial<ServerInputs>, kind: keyof typeof DEFAULT_TIMEOUTS) {
  vi.useFakeTimers({ now: 0 });
  try {
    return deadlineFor(inputs, kind);
  } finally {
    vi.useRealTimers();
  }
}
const timeoutMs = (...args: Parameters<typeof limitOf>) => limitOf(...args).deadlineAt;
const timeoutSetting = (...args: Parameters<typeof limitOf>) => limitOf(...args).timeoutSetting;

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
    expect(storedInputs(outs)).toStrictEqual({
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
    const live = storedInputs(
      fromApi(
        server({ status: "stopping", user_defined_name: "renamed", firewall_enabled: true }),
        INPUTS,
      ),
    );
    expect(live).toMatchObject({ powerState: "stopped", name: "renamed", firewallEnabled: true });
    const errored = storedInputs(fromApi(server({ status: "error" }), INPUTS));
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

describe("matching a lost create's answer", () => {
  it("leaves the power state out: a server is made running and stopped only after its create", () => {
    const asked = ServerInputsSchema.parse({
      name: "web",
      planId: 3,
      image: "ubuntu-24.04",
      powerState: "stopped",
    });
    for (const status of ["provisioning", "running"] as const) {
      expect(matchesRequest(definition, wireServer({ status }), asked)).toBe(true);
    }
    expect(matchesRequest(definition, wireServer({ plan_id: 4 }), asked)).toBe(false);
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

  it("takes an operation's deadline from the timeouts input, else the engine's customTimeouts, else the default", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      expect(deadlineFor({}, "create", { timeoutMs: 90_000 })).toEqual({
        deadlineAt: 1_090_000,
        timeoutSetting: "customTimeouts.create (now 1m30s)",
      });
      expect(deadlineFor({ timeouts: { update: "5m" } }, "update", { timeoutMs: 90_000 })).toEqual({
        deadlineAt: 1_300_000,
        timeoutSetting: "timeouts.update (now 5m)",
      });
      // Another operation's input does not count; no limit, a zero one or none: the default.
      for (const limits of [undefined, {}, { timeoutMs: 0 }]) {
        expect(deadlineFor({ timeouts: { update: "5m" } }, "delete", limits)).toEqual({
          deadlineAt: 1_600_000,
          timeoutSetting: "timeouts.delete (now 10m, the default)",
        });
      }
    } finally {
      vi.useRealTimers();
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
  function scripted(script: [number, string | Error][], signal?: AbortSignal) {
    const polls: number[] = [];
    const get = async () => {
      const now = Date.now();
      polls.push(now);
      let current: string | Error = "unknown";
      for (const [at, value] of script) if (now >= at) current = value;
      if (current instanceof Error) throw current;
      return server({ status: current });
    };
    const source = { get, list: async () => [await get()] };
    const watch = new ServerWatch(source, signal === undefined ? {} : { signal });
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
    const controller = new AbortController();
    const { watch, polls } = scripted([[0, "provisioning"]], controller.signal);
    const done = waitForServerStatus(watch, 42, {
      action: "create",
      target: "running",
      deadlineAt: 600_000,
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

describe("the model's exact words and values", () => {
  const DURATION_FORM = 'expected a duration such as "90s", "10m" or "1h30m" (units h, m, s, ms)';
  const timeoutFailures = (timeouts: unknown) => failuresOf("Server", { ...INPUTS, timeouts });

  it("says what each input may be", () => {
    expect(
      failuresOf("Server", {
        name: "web",
        planId: 3,
        image: " ",
        sshKeyIds: [5, 5],
        securityGroupIds: "4",
        firewallEnabled: "yes",
        powerState: "paused",
        timeouts: "10m",
      }),
    ).toStrictEqual([
      {
        property: "image",
        reason: 'image: must not be empty: give an image name such as "ubuntu-24.04"',
      },
      { property: "sshKeyIds", reason: "sshKeyIds: must not contain duplicates" },
      {
        property: "securityGroupIds",
        reason: "securityGroupIds: expected a list of security group ids",
      },
      { property: "firewallEnabled", reason: "firewallEnabled: expected true or false" },
      { property: "powerState", reason: 'powerState: expected "running" or "stopped"' },
      {
        property: "timeouts",
        reason: "timeouts: expected an object with create, update and delete durations",
      },
    ]);
    expect(failuresOf("Server", { ...INPUTS, image: 5, sshKeyIds: ["x"] })).toStrictEqual([
      { property: "image", reason: 'image: expected an image name such as "ubuntu-24.04"' },
      {
        property: "sshKeyIds",
        reason:
          'sshKeyIds[0]: expected an SSH key id (a positive integer, or its decimal text), got "x"',
      },
    ]);
    expect(failuresOf("Server", { ...INPUTS, planId: "abc" })).toStrictEqual([
      {
        property: "planId",
        reason: 'planId: expected a plan id (a positive integer, or its decimal text), got "abc"',
      },
    ]);
    expect(failuresOf("Server", { ...INPUTS, securityGroupIds: [0] })).toStrictEqual([
      {
        property: "securityGroupIds",
        reason:
          "securityGroupIds[0]: expected a security group id (a positive integer, or its decimal text), got 0",
      },
    ]);
    expect(
      failuresOf("Server", { ...INPUTS, timeouts: { create: "1m", read: "1m" } }),
    ).toStrictEqual([
      {
        property: "timeouts",
        reason: "timeouts: expected an object with create, update and delete durations",
      },
    ]);
  });

  it("stores the image trimmed and both id lists ascending", () => {
    expect(
      checkOf("Server", {
        name: "web",
        planId: 3,
        image: " debian-13 ",
        sshKeyIds: [12, 5, 100],
        securityGroupIds: ["9", 10],
      }),
    ).toStrictEqual({
      inputs: {
        name: "web",
        planId: 3,
        image: "debian-13",
        sshKeyIds: [5, 12, 100],
        securityGroupIds: [9, 10],
        firewallEnabled: false,
      },
    });
  });

  it("takes durations from 1ms to 24h, in h, m, s and ms, and says which rule one breaks", () => {
    for (const ok of ["24h", "1ms", "1h0m0s0ms", "23h59m59s999ms", " 10m "]) {
      expect(timeoutFailures({ create: ok }), ok).toStrictEqual([]);
    }
    expect(timeoutFailures({ create: "24h0m0s1ms" })).toStrictEqual([
      { property: "timeouts", reason: "timeouts.create: must be at most 24h" },
    ]);
    expect(timeoutFailures({ update: "1441m" })).toStrictEqual([
      { property: "timeouts", reason: "timeouts.update: must be at most 24h" },
    ]);
    expect(timeoutFailures({ delete: "0ms" })).toStrictEqual([
      { property: "timeouts", reason: "timeouts.delete: must be longer than zero" },
    ]);
    for (const bad of [
      "",
      " ",
      "10",
      "1d",
      "m",
      "10ms5s",
      "5s10m",
      "1h 30m",
      "x10m",
      "10mx",
      "10msec",
      "-5m",
      "1.5h",
    ]) {
      expect(timeoutFailures({ create: bad }), bad).toStrictEqual([
        { property: "timeouts", reason: `timeouts.create: ${DURATION_FORM}` },
      ]);
    }
    expect(timeoutFailures({ create: 600 })).toStrictEqual([
      {
        property: "timeouts",
        reason: 'timeouts.create: expected a duration such as "90s", "10m" or "1h30m"',
      },
    ]);
  });

  it("reads each unit of a duration, and uses the default of each operation", () => {
    const ms = (create: string) => timeoutMs({ timeouts: { create } }, "create");
    expect(ms("2h")).toBe(7_200_000);
    expect(ms("1h1m1s1ms")).toBe(3_661_001);
    expect(ms("45s")).toBe(45_000);
    expect(ms(" 7ms ")).toBe(7);
    expect(ms("soon")).toBe(600_000);
    expect(DEFAULT_TIMEOUTS).toStrictEqual({ create: "10m", update: "10m", delete: "10m" });
    for (const kind of ["create", "update", "delete"] as const) {
      expect(timeoutMs({}, kind)).toBe(600_000);
      expect(timeoutMs({ timeouts: { [kind]: "3m" } }, kind)).toBe(180_000);
    }
    expect(timeoutMs({ timeouts: { create: "3m" } }, "delete")).toBe(600_000);
  });

  it("names the setting that limits a wait, and whether it is the default", () => {
    expect(timeoutSetting({}, "create")).toBe("timeouts.create (now 10m, the default)");
    expect(timeoutSetting({ timeouts: { update: "2m" } }, "update")).toBe(
      "timeouts.update (now 2m)",
    );
    expect(timeoutSetting({ timeouts: { update: "2m" } }, "delete")).toBe(
      "timeouts.delete (now 10m, the default)",
    );
  });

  it("formats elapsed times at each unit's edges", () => {
    expect(formatDuration(0)).toBe("0ms");
    expect(formatDuration(-5)).toBe("0ms");
    expect(formatDuration(999.4)).toBe("999ms");
    expect(formatDuration(1000)).toBe("1.0s");
    expect(formatDuration(59_949)).toBe("59.9s");
    expect(formatDuration(60_000)).toBe("1m00s");
    expect(formatDuration(3_599_999)).toBe("59m59s");
    expect(formatDuration(3_600_000)).toBe("1h00m00s");
    expect(formatDuration(36_610_000)).toBe("10h10m10s");
  });

  it("defaults the power state to running, except for a server adopted now or before", () => {
    expect(withPowerStateDefault({ name: "web" }, {})).toStrictEqual({
      name: "web",
      powerState: "running",
    });
    expect(withPowerStateDefault({ name: "web", powerState: "stopped" }, {})).toStrictEqual({
      name: "web",
      powerState: "stopped",
    });
    expect(withPowerStateDefault({ name: "web", adoptId: "42" }, {})).toStrictEqual({
      name: "web",
      adoptId: "42",
    });
    expect(withPowerStateDefault({ name: "web" }, { name: "web" })).toStrictEqual({ name: "web" });
    expect(
      withPowerStateDefault({ name: "web" }, { name: "web", powerState: "stopped" }),
    ).toStrictEqual({
      name: "web",
      powerState: "running",
    });
  });

  it("maps each status to the power state it is at or heading to", () => {
    const states = ["running", "provisioning", "starting", "rebooting", "stopped", "stopping"];
    expect(states.map(powerStateOf)).toStrictEqual([
      "running",
      "running",
      "running",
      "running",
      "stopped",
      "stopped",
    ]);
    for (const status of ["error", "deleting", "paused", ""]) {
      expect(powerStateOf(status), status).toBeUndefined();
    }
  });

  it("reads the image from the os entry only", () => {
    expect(
      osOf(
        server({
          data: [
            { name: "region", value: "x" },
            { name: "os", value: "alma-9" },
          ],
        }),
      ),
    ).toBe("alma-9");
    expect(osOf(server({ data: [{ name: "region", value: "x" }] }))).toBeUndefined();
  });

  it("keeps the stored image, power state, SSH keys and timeouts where the live server has none", () => {
    expect(
      liveInputs(server({ data: [], status: "error" }), {
        image: "debian-13",
        powerState: "stopped",
        sshKeyIds: [5],
        timeouts: { create: "20m" },
      }),
    ).toStrictEqual({
      name: "web",
      planId: 3,
      firewallEnabled: false,
      image: "debian-13",
      powerState: "stopped",
      sshKeyIds: [5],
      timeouts: { create: "20m" },
    });
    expect(liveInputs(server({ data: [], status: "deleting" }), {})).toStrictEqual({
      name: "web",
      planId: 3,
      firewallEnabled: false,
    });
    expect(liveInputs(server(), { image: "debian-13", powerState: "stopped" })).toStrictEqual({
      name: "web",
      planId: 3,
      firewallEnabled: false,
      image: "ubuntu-24.04",
      powerState: "running",
    });
  });

  it("leaves out an empty IP and reads each optional field on its own", () => {
    const base = { serverId: 42, status: "running", createdAt: "2026-01-01T10:00:00Z" };
    const live = { name: "web", planId: 3, firewallEnabled: false, powerState: "running" };
    expect(
      fromApi(server({ ip: "", vm_id: null, order_id: null, status_date: null, data: [] }), {}),
    ).toStrictEqual({ ...live, ...base });
    expect(
      fromApi(
        server({ ip: undefined, vm_id: undefined, order_id: undefined, status_date: undefined }),
        {},
      ),
    ).toStrictEqual({ ...live, image: "ubuntu-24.04", ...base, os: "ubuntu-24.04" });
    expect(
      fromApi(server({ ip: "10.0.0.1", vm_id: null, order_id: 8, status_date: null }), {}),
    ).toStrictEqual({
      ...live,
      image: "ubuntu-24.04",
      ...base,
      ip: "10.0.0.1",
      os: "ubuntu-24.04",
      orderId: 8,
    });
    expect(fromApi(server({ ip: null, vm_id: 9, order_id: null }), {})).toStrictEqual({
      ...live,
      image: "ubuntu-24.04",
      ...base,
      statusDate: "2026-01-01T10:00:03Z",
      os: "ubuntu-24.04",
      vmId: 9,
    });
  });

  it("reads nothing from no stored state, and every input field of a stored one", () => {
    expect(storedInputs(undefined)).toStrictEqual({});
    const stored = { ...INPUTS, sshKeyIds: [5], securityGroupIds: [4], timeouts: { create: "2m" } };
    expect(storedInputs({ ...stored, adoptId: "42", serverId: 42 })).toStrictEqual(stored);
    expect(INPUT_FIELDS).toStrictEqual([
      "name",
      "planId",
      "image",
      "sshKeyIds",
      "securityGroupIds",
      "firewallEnabled",
      "powerState",
      "timeouts",
    ]);
  });

  it("sends the SSH keys only when given", () => {
    expect(wireRequest(toApi({ ...INPUTS, sshKeyIds: [5, 12] }))).toStrictEqual({
      plan_id: 3,
      image: "ubuntu-24.04",
      user_defined_name: "web",
      ssh_key_ids: [5, 12],
      firewall_enabled: false,
      quantity: 1,
    });
    expect(wireRequest(toApi(INPUTS))).toStrictEqual({
      plan_id: 3,
      image: "ubuntu-24.04",
      user_defined_name: "web",
      firewall_enabled: false,
      quantity: 1,
    });
  });

  it("diffs to exactly these changes, replacements and stable fields", () => {
    const olds = fromApi(server(), { ...INPUTS, sshKeyIds: [5] });
    expect(diffServer(olds, { ...INPUTS, sshKeyIds: [5] })).toStrictEqual({
      changes: false,
      replaces: [],
      stables: INPUT_FIELDS,
      deleteBeforeReplace: false,
    });
    expect(diffServer(olds, { ...INPUTS, sshKeyIds: [6], powerState: "stopped" })).toStrictEqual({
      changes: true,
      replaces: ["sshKeyIds"],
      stables: ["name", "planId", "image", "securityGroupIds", "firewallEnabled", "timeouts"],
      deleteBeforeReplace: false,
    });
    expect(
      diffServer(fromApi(server({ status: "error" }), INPUTS), { ...INPUTS, planId: 4 }),
    ).toStrictEqual({
      changes: true,
      replaces: ["planId", "status"],
      stables: INPUT_FIELDS.filter((field) => field !== "planId"),
      deleteBeforeReplace: false,
    });
  });

  it("compares id sets with null as empty, and leaves an unset power state alone", () => {
    const equals = (field: "sshKeyIds" | "securityGroupIds" | "powerState") =>
      FIELDS[field].equals as (a: unknown, b: unknown) => boolean;
    expect(equals("sshKeyIds")(null, [])).toBe(true);
    expect(equals("securityGroupIds")([], undefined)).toBe(true);
    expect(equals("securityGroupIds")([1], undefined)).toBe(false);
    expect(equals("sshKeyIds")([1, 2], [2, 1])).toBe(false);
    expect(equals("powerState")("stopped", undefined)).toBe(true);
    expect(equals("powerState")("stopped", "running")).toBe(false);
    expect(equals("powerState")(undefined, "running")).toBe(false);
  });
});
