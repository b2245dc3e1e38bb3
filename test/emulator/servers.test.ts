import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from "../../src/api/errors";
import type { Server } from "../../src/api/schemas/servers";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;

beforeAll(async () => {
  api = await startApi({ lifecycle: { mode: "manual" } });
});
afterAll(async () => {
  await api?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function createRunning(name: string, planId = 2): Promise<Server> {
  const [server] = await api.client.servers.create({
    plan_id: planId,
    image: "debian-12",
    user_defined_name: name,
  });
  if (server === undefined) throw new Error("no server created");
  await api.emulator.admin.advance({ server_id: server.id });
  return api.client.servers.get(server.id);
}

async function statusOf(id: number): Promise<string> {
  return (await api.client.servers.get(id)).status;
}

describe("POST /v1/servers", () => {
  it("creates `quantity` servers in provisioning, each with its own id, address, order and the plan", async () => {
    const plans = await api.client.catalogue.listPlans();
    const vpsS = plans.find((p) => p.id === 2);
    const created = await api.client.servers.create({
      plan_id: 2,
      image: "ubuntu-24.04",
      user_defined_name: "web",
      quantity: 2,
    });

    expect(created).toHaveLength(2);
    const [a, b] = created as [Server, Server];
    for (const server of created) {
      expect(server).toMatchObject({
        status: "provisioning",
        user_defined_name: "web",
        plan_id: 2,
        plan: vpsS,
        account_id: 1,
        firewall_enabled: false,
        tags: [],
        security_groups: [],
      });
      expect(server.data).toContainEqual({ name: "os", value: "ubuntu-24.04" });
      expect(server.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(server.vm_id).toEqual(expect.any(Number));
      expect(server.order_id).toEqual(expect.any(Number));
      expect(Date.parse(server.status_date ?? "")).toBeGreaterThan(0);
    }
    expect(a.id).not.toBe(b.id);
    expect(a.ip).not.toBe(b.ip);
    expect(a.order_id).not.toBe(b.order_id);

    const listed = await api.client.servers.list();
    expect(listed.map((s) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));
  });

  it("records an order per server that bills the plan", async () => {
    const [server] = await api.client.servers.create({
      plan_id: 3,
      image: "rocky-9",
      user_defined_name: "billed",
    });
    const state = await api.emulator.call("GET", "/_emulator/accounts/1");
    const orders = (
      state.body as {
        orders: { id: number; order_plans: { plan_id: number; server_ids: number[] }[] }[];
      }
    ).orders;
    const order = orders.find((o) => o.id === server?.order_id);
    expect(order?.order_plans).toEqual([
      expect.objectContaining({ plan_id: 3, server_ids: [server?.id] }),
    ]);
  });

  it("gives dedicated servers no VM id", async () => {
    const [server] = await api.client.servers.create({
      plan_id: 7,
      image: "debian-13",
      user_defined_name: "metal",
    });
    expect(server?.plan?.type).toBe("Dedicated Server");
    expect(server?.vm_id ?? undefined).toBeUndefined();
  });

  it("installs keys, attaches groups and enables the firewall as asked", async () => {
    const { key } = await api.client.keys.create({ name: "deploy", type: "generate" });
    await api.client.firewall.create({
      name: "ssh-only",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }],
    });
    const group = (await api.client.firewall.listAll()).find((g) => g.name === "ssh-only");
    const [server] = await api.client.servers.create({
      plan_id: 1,
      image: "alma-9",
      user_defined_name: "guarded",
      ssh_key_ids: [key.id],
      security_group_ids: [group?.id ?? 0],
      firewall_enabled: true,
    });
    expect(server?.firewall_enabled).toBe(true);
    expect(server?.security_groups.map((g) => g.name)).toEqual(["ssh-only"]);
    const attached = await api.client.firewall.get(group?.id ?? 0);
    expect(attached.servers.map((s) => s.id)).toEqual([server?.id]);
  });

  it("names every unknown plan, image, key and group in one 400 and creates nothing", async () => {
    const other = await api.otherAccount();
    const { key: foreignKey } = await other.keys.create({ name: "theirs", type: "generate" });
    const before = (await api.client.servers.list()).length;

    const error = await apiError(
      api.client.servers.create({
        plan_id: 999,
        image: "templeos-5",
        user_defined_name: "nope",
        ssh_key_ids: [foreignKey.id],
        security_group_ids: [424242],
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
    expect(error.fieldErrors.map((e) => e.field)).toEqual([
      "plan_id",
      "image",
      "ssh_key_ids[0]",
      "security_group_ids[0]",
    ]);
    expect((await api.client.servers.list()).length).toBe(before);
  });

  it("refuses a bad body on the server side too (raw request)", async () => {
    const answer = await api.emulator.call("POST", "/v1/servers", {
      json: { plan_id: 1, image: "debian-12", user_defined_name: " ", quantity: 11, size: "xl" },
    });
    expect(answer.status).toBe(400);
    const fields = (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["user_defined_name", "quantity", "size"]));
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await api.emulator.call("POST", "/v1/servers", {
      body: "plan_id=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ code: "unsupported_media_type" });
  });
});

describe("GET and rename", () => {
  it("reads one server and hides other accounts' servers", async () => {
    const server = await createRunning("mine");
    expect(await api.client.servers.get(server.id)).toMatchObject({
      id: server.id,
      status: "running",
    });

    const other = await api.otherAccount();
    expect(await other.servers.list()).toEqual([]);
    const error = await apiError(other.servers.get(server.id));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(
      await apiError(other.servers.update(server.id, { user_defined_name: "x" })),
    ).toBeInstanceOf(NotFoundError);
    expect(await apiError(other.servers.manage(server.id, { action: "stop" }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await apiError(other.servers.getMetrics(server.id))).toBeInstanceOf(NotFoundError);
    expect(await apiError(api.client.servers.get(987654))).toMatchObject({
      status: 404,
      code: "not_found",
    });
  });

  it("renames a server; a blank name is 400", async () => {
    const server = await createRunning("old-name");
    const answer = await api.client.servers.update(server.id, { user_defined_name: "new-name" });
    expect(answer.success).toBe(true);
    expect((await api.client.servers.get(server.id)).user_defined_name).toBe("new-name");

    const blank = await api.emulator.call("POST", `/v1/servers/${server.id}`, {
      json: { user_defined_name: "   " },
    });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ errors: [{ field: "user_defined_name" }] });
    expect((await api.client.servers.get(server.id)).user_defined_name).toBe("new-name");
  });

  it("answers 400 for an id that is not a positive integer", async () => {
    const answer = await api.emulator.call("GET", "/v1/servers/abc");
    expect(answer.status).toBe(400);
  });
});

describe("management and the lifecycle (manual mode)", () => {
  it("walks provisioning → running → stopping → stopped → starting → running → rebooting → running, moving status_date", async () => {
    const [created] = await api.client.servers.create({
      plan_id: 2,
      image: "debian-12",
      user_defined_name: "walker",
    });
    const id = created?.id ?? 0;
    const dates = [created?.status_date];
    const step = async (offsetMinutes: number, expected: string) => {
      api.emulator.admin.setClock({ offset_ms: offsetMinutes * 60_000 });
      await api.emulator.admin.advance({ server_id: id });
      const server = await api.client.servers.get(id);
      expect(server.status).toBe(expected);
      dates.push(server.status_date);
    };
    try {
      expect(await statusOf(id)).toBe("provisioning");
      await step(1, "running");
      for (const [action, via, settled] of [
        ["stop", "stopping", "stopped"],
        ["start", "starting", "running"],
        ["reboot", "rebooting", "running"],
      ] as const) {
        const { action_id } = await api.client.servers.manage(id, { action });
        expect(action_id).toMatch(UUID);
        expect(await statusOf(id)).toBe(via);
        await step(dates.length + 1, settled);
      }
    } finally {
      api.emulator.admin.setClock({ offset_ms: 0 });
    }
    const times = dates.map((d) => Date.parse(d ?? ""));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(new Set(times).size).toBe(times.length);
  });

  it("answers 409 naming the current and the accepted statuses, and changes nothing", async () => {
    const [created] = await api.client.servers.create({
      plan_id: 2,
      image: "debian-12",
      user_defined_name: "picky",
    });
    const id = created?.id ?? 0;
    const deleteWhileProvisioning = await apiError(
      api.client.servers.manage(id, { action: "delete" }),
    );
    expect(deleteWhileProvisioning).toBeInstanceOf(ConflictError);
    expect(deleteWhileProvisioning.message).toMatch(/provisioning/);
    expect(deleteWhileProvisioning.message).toMatch(/running, stopped or error/);

    await api.emulator.admin.advance({ server_id: id });
    const start = await apiError(api.client.servers.manage(id, { action: "start" }));
    expect(start).toMatchObject({ status: 409, code: "conflict" });
    expect(start.message).toMatch(/while it is running; start is accepted when it is stopped/);

    await api.client.servers.manage(id, { action: "stop" });
    const stopAgain = await apiError(api.client.servers.manage(id, { action: "stop" }));
    expect(stopAgain.message).toMatch(/while it is stopping/);
    expect(await apiError(api.client.servers.manage(id, { action: "reboot" }))).toBeInstanceOf(
      ConflictError,
    );
    expect(await statusOf(id)).toBe("stopping");
  });

  it("refuses an unknown action with 400", async () => {
    const server = await createRunning("actions");
    const answer = await api.emulator.call("POST", `/v1/servers/${server.id}/management`, {
      json: { action: "hibernate" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: "action" }] });
  });

  it("deletes through deleting: no rename meanwhile, then 404 and gone from its tags and groups", async () => {
    const server = await createRunning("doomed");
    const tag = await api.client.tags.create({
      name: "doomed-tag",
      color: "#aa0000",
      server_ids: [server.id],
    });
    await api.client.firewall.create({ name: "doomed-group", rules: [] });
    const group = (await api.client.firewall.listAll()).find((g) => g.name === "doomed-group");
    await api.client.firewall.attachServer(group?.id ?? 0, server.id);

    await api.client.servers.manage(server.id, { action: "delete" });
    expect(await statusOf(server.id)).toBe("deleting");
    const rename = await apiError(
      api.client.servers.update(server.id, { user_defined_name: "saved" }),
    );
    expect(rename).toBeInstanceOf(ConflictError);

    await api.emulator.admin.advance({ server_id: server.id });
    expect(await apiError(api.client.servers.get(server.id))).toBeInstanceOf(NotFoundError);
    expect((await api.client.servers.list()).some((s) => s.id === server.id)).toBe(false);
    const tags = await api.client.tags.list();
    expect(tags.find((t) => t.id === tag.id)?.servers).toEqual([]);
    expect((await api.client.firewall.get(group?.id ?? 0)).servers).toEqual([]);
    expect(
      await apiError(api.client.servers.manage(server.id, { action: "delete" })),
    ).toBeInstanceOf(NotFoundError);
  });

  it("ends a failed provisioning in error, from which the server can be deleted", async () => {
    api.emulator.admin.failProvisioning({ next: 1 });
    const [created] = await api.client.servers.create({
      plan_id: 1,
      image: "debian-12",
      user_defined_name: "unlucky",
    });
    await api.emulator.admin.advance({ server_id: created?.id ?? 0 });
    expect(await statusOf(created?.id ?? 0)).toBe("error");
    expect(
      await apiError(api.client.servers.manage(created?.id ?? 0, { action: "start" })),
    ).toBeInstanceOf(ConflictError);
    const { action_id } = await api.client.servers.manage(created?.id ?? 0, { action: "delete" });
    expect(action_id).toMatch(UUID);
  });
});

describe("GET /v1/servers/:id/statistics", () => {
  it("answers aligned series for the last hour by default, sized by the plan", async () => {
    const server = await createRunning("metered", 2);
    const metrics = await api.client.servers.getMetrics(server.id);
    const n = metrics.timestamps.length;
    expect(n).toBeGreaterThanOrEqual(60);
    expect(n).toBeLessThanOrEqual(61);
    for (const series of [
      metrics.cpu_usage_percent,
      metrics.mem_used_mb,
      metrics.net_in_kbps,
      metrics.net_out_kbps,
      metrics.disk_read_kbps,
      metrics.disk_write_kbps,
    ]) {
      expect(series).toHaveLength(n);
    }
    // VPS S has 4 GB of RAM.
    expect(metrics.mem_total_mb).toBe(4096);
    expect(Math.max(...metrics.mem_used_mb)).toBeLessThanOrEqual(4096);
    expect(Math.max(...metrics.cpu_usage_percent)).toBeLessThanOrEqual(100);
    const last = Date.parse(metrics.timestamps.at(-1) ?? "");
    expect(Math.abs(Date.now() - last)).toBeLessThan(2 * 60_000);
  });

  it("is deterministic for an explicit window and steps as asked", async () => {
    const server = await createRunning("graphs");
    const path = `/v1/servers/${server.id}/statistics?from=2024-05-01T00:00:00Z&to=2024-05-01T06:00:00Z&step=900`;
    const first = await api.emulator.call("GET", path);
    const second = await api.emulator.call("GET", path);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const body = first.body as { timestamps: string[]; cpu_usage_percent: number[] };
    expect(body.timestamps).toHaveLength(25);
    expect(body.timestamps[0]).toBe("2024-05-01T00:00:00Z");
    expect(body.timestamps[1]).toBe("2024-05-01T00:15:00Z");
    expect(body.cpu_usage_percent).toHaveLength(25);
  });

  it("answers empty series, still sized by the plan, for a window in the future", async () => {
    const server = await createRunning("future-window", 2);
    const query = "from=2999-01-01T00:00:00Z&to=2999-01-01T01:00:00Z";
    const answer = await api.emulator.call("GET", `/v1/servers/${server.id}/statistics?${query}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      timestamps: [],
      cpu_usage_percent: [],
      mem_used_mb: [],
      mem_total_mb: 4096,
      net_in_kbps: [],
      net_out_kbps: [],
      disk_read_kbps: [],
      disk_write_kbps: [],
    });
  });

  it("answers 400 for a bad window", async () => {
    const server = await createRunning("bad-window");
    for (const [query, field] of [
      ["from=yesterday", "from"],
      ["from=2024-05-02T00:00:00Z&to=2024-05-01T00:00:00Z", "to"],
      ["step=0", "step"],
      ["from=2000-01-01T00:00:00Z&to=2024-01-01T00:00:00Z&step=1", "step"],
    ] as const) {
      const answer = await api.emulator.call("GET", `/v1/servers/${server.id}/statistics?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code: "invalid_request", errors: [{ field }] });
    }
  });
});

describe("permissions and authentication", () => {
  it("lets servers:read read but not change, and no permission read nothing", async () => {
    const server = await createRunning("guarded-read");
    const reader = api.clientWith(await api.keyWith(["servers:read"]));
    expect((await reader.servers.get(server.id)).id).toBe(server.id);
    expect((await reader.servers.getMetrics(server.id)).timestamps.length).toBeGreaterThan(0);
    for (const call of [
      reader.servers.create({ plan_id: 1, image: "debian-12", user_defined_name: "x" }),
      reader.servers.update(server.id, { user_defined_name: "x" }),
      reader.servers.manage(server.id, { action: "stop" }),
    ]) {
      const error = await apiError(call);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toMatch(/servers:write/);
    }
    expect(await statusOf(server.id)).toBe("running");

    const nobody = api.clientWith(await api.keyWith(["tags:read"]));
    expect(await apiError(nobody.servers.list())).toMatchObject({ status: 403, code: "forbidden" });
  });

  it("answers 401 to an unknown key", async () => {
    const stranger = api.clientWith("cik_not-a-real-key");
    expect(await apiError(stranger.servers.list())).toBeInstanceOf(UnauthorizedError);
  });
});

describe("real timings", () => {
  it("reaches running, and after a stop stopped, on its own after the configured times", async () => {
    const timed = await startApi({
      lifecycle: { durations: { provisioning: 150, stopping: 100 } },
    });
    try {
      const createdAt = Date.now();
      const [created] = await timed.client.servers.create({
        plan_id: 1,
        image: "debian-12",
        user_defined_name: "timed",
      });
      const id = created?.id ?? 0;
      expect(created?.status).toBe("provisioning");
      expect((await waitFor(timed, id, "running")).at(-1)).toBe("running");
      expect(Date.now() - createdAt).toBeGreaterThanOrEqual(140);

      const stoppedAt = Date.now();
      await timed.client.servers.manage(id, { action: "stop" });
      expect((await waitFor(timed, id, "stopped")).at(-1)).toBe("stopped");
      expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(90);
    } finally {
      await timed.close();
    }
  });
});

/** Polls (there is no event to await over HTTP) until `status`; returns the statuses seen. */
async function waitFor(fixture: ApiFixture, id: number, status: string): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 200; i++) {
    const current = (await fixture.client.servers.get(id)).status;
    if (seen.at(-1) !== current) seen.push(current);
    if (current === status) return seen;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`server ${id} never reached ${status}; saw ${seen.join(" → ")}`);
}
