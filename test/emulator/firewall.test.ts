import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
} from "../../src/api/errors";
import type { SecurityGroup, SecurityGroupRequest } from "../../src/api/schemas/firewall";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;
let server: number;

beforeAll(async () => {
  api = await startApi({ lifecycle: { mode: "manual" } });
  const [created] = await api.client.servers.create({
    plan_id: 1,
    image: "debian-12",
    user_defined_name: "guarded",
  });
  server = created?.id ?? 0;
});
afterAll(async () => {
  await api?.close();
});

/** Creation answers no id (spec): a caller finds its group by the name, unique per account. */
async function create(
  body: SecurityGroupRequest,
  client: CloudInfraClient = api.client,
): Promise<SecurityGroup> {
  await client.firewall.create(body);
  const found = (await client.firewall.listAll()).find((g) => g.name === body.name);
  if (found === undefined) throw new Error(`group ${body.name} not listed after creation`);
  return found;
}

describe("POST /v1/firewall/groups", () => {
  it("answers 201 with a GenericResponse without an id; the group then lists with ids on its rules", async () => {
    const answer = await api.emulator.call("POST", "/v1/firewall/groups", {
      json: {
        name: "web",
        description: "HTTP and HTTPS",
        rules: [
          { action: "ACCEPT", proto: "tcp", dport: "80" },
          { action: "ACCEPT", proto: "tcp", dport: "443", source: "0.0.0.0/0" },
          { action: "DROP", proto: "icmp", source: "::/0" },
        ],
      },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ success: true });
    expect(answer.body).not.toHaveProperty("id");

    const group = (await api.client.firewall.listAll()).find((g) => g.name === "web");
    expect(group).toMatchObject({
      description: "HTTP and HTTPS",
      account_id: 1,
      created_by_user: 1,
      servers: [],
    });
    // Every rule carries the spec's four fields; null is "every port" or "any source".
    expect(group?.rules.map(({ id: _id, ...rule }) => rule)).toEqual([
      { action: "ACCEPT", proto: "tcp", dport: "80", source: null },
      { action: "ACCEPT", proto: "tcp", dport: "443", source: "0.0.0.0/0" },
      { action: "DROP", proto: "icmp", dport: null, source: "::/0" },
    ]);
    const ids = group?.rules.map((r) => r.id) ?? [];
    expect(new Set(ids).size).toBe(3);
    expect(await api.client.firewall.get(group?.id ?? 0)).toEqual(group);
  });

  it("answers 400 naming each bad rule field (raw request, as the client refuses them itself)", async () => {
    const answer = await api.emulator.call("POST", "/v1/firewall/groups", {
      json: {
        name: "broken",
        rules: [
          { action: "ACCEPT", proto: "icmp", dport: "22" },
          { action: "ACCEPT", proto: "tcp", dport: "9000-8000" },
          { action: "ACCEPT", proto: "udp", dport: "70000" },
          { action: "ALLOW", proto: "tcp", source: "10.0.0.0/33" },
        ],
      },
    });
    expect(answer.status).toBe(400);
    const fields = (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        "rules[0].dport",
        "rules[1].dport",
        "rules[2].dport",
        "rules[3].action",
        "rules[3].source",
      ]),
    );
    expect((await api.client.firewall.listAll()).some((g) => g.name === "broken")).toBe(false);
  });

  it("answers 409 for a name the account already uses, in any case; another account may use it", async () => {
    await create({ name: "dup", rules: [] });
    const error = await apiError(api.client.firewall.create({ name: "Dup ", rules: [] }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toMatch(/dup/);
    const other = await api.otherAccount();
    expect((await create({ name: "dup", rules: [] }, other)).name).toBe("dup");
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await api.emulator.call("POST", "/v1/firewall/groups", {
      body: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(415);
  });
});

describe("GET /v1/firewall/groups (paged)", () => {
  it("pages through every group exactly once", async () => {
    const other = await api.otherAccount();
    for (let i = 1; i <= 5; i++) await other.firewall.create({ name: `page-${i}`, rules: [] });

    const first = await other.firewall.listPage({ page: 1, limit: 2 });
    expect(first).toMatchObject({ page: 1, limit: 2, total_count: 5, total_pages: 3 });
    expect(first.data.map((g) => g.name)).toEqual(["page-1", "page-2"]);
    const last = await other.firewall.listPage({ page: 3, limit: 2 });
    expect(last.data.map((g) => g.name)).toEqual(["page-5"]);
    const past = await other.firewall.listPage({ page: 4, limit: 2 });
    expect(past).toMatchObject({ data: [], total_count: 5, total_pages: 3 });

    const walked = [];
    for await (const group of other.firewall.iterate({ limit: 2 })) walked.push(group.name);
    expect(walked).toEqual(["page-1", "page-2", "page-3", "page-4", "page-5"]);
    expect(await other.firewall.listPage()).toMatchObject({ page: 1, limit: 20, total_pages: 1 });
  });

  it("answers 400 for a bad page or limit", async () => {
    for (const query of ["page=0", "page=x", "limit=0", "limit=101", "limit=2.5"]) {
      const answer = await api.emulator.call("GET", `/v1/firewall/groups?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code: "invalid_request" });
    }
  });

  it("shows an account with no groups zero pages", async () => {
    const other = await api.otherAccount();
    expect(await other.firewall.listPage()).toMatchObject({
      data: [],
      total_count: 0,
      total_pages: 0,
    });
  });
});

describe("POST /v1/firewall/groups/:id", () => {
  it("replaces name, description and rules; unchanged rules keep their ids", async () => {
    const group = await create({
      name: "replace-me",
      description: "old",
      rules: [
        { action: "ACCEPT", proto: "tcp", dport: "22" },
        { action: "ACCEPT", proto: "tcp", dport: "80" },
      ],
    });
    const ssh = group.rules[0];
    const answer = await api.client.firewall.update(group.id, {
      name: "replaced",
      rules: [
        { action: "ACCEPT", proto: "tcp", dport: "22" },
        { action: "DROP", proto: "any" },
      ],
    });
    expect(answer.success).toBe(true);
    const now = await api.client.firewall.get(group.id);
    expect(now).toMatchObject({ name: "replaced", description: "" });
    expect(now.rules[0]).toEqual(ssh);
    expect(now.rules[1]).toMatchObject({ action: "DROP", proto: "any" });
    expect(group.rules.map((r) => r.id)).not.toContain(now.rules[1]?.id);

    // Repeating the same update changes nothing a caller sees.
    await api.client.firewall.update(group.id, {
      name: "replaced",
      rules: [
        { action: "ACCEPT", proto: "tcp", dport: "22" },
        { action: "DROP", proto: "any" },
      ],
    });
    expect((await api.client.firewall.get(group.id)).rules).toEqual(now.rules);
  });

  it("answers 409 for another group's name, 400 for bad rules and 404 for other accounts", async () => {
    const group = await create({ name: "keeper", rules: [] });
    await create({ name: "taken", rules: [] });
    expect(
      await apiError(api.client.firewall.update(group.id, { name: "taken", rules: [] })),
    ).toBeInstanceOf(ConflictError);
    const bad = await api.emulator.call("POST", `/v1/firewall/groups/${group.id}`, {
      json: { name: "keeper", rules: [{ action: "ACCEPT", proto: "tcp", dport: "0" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ field: "rules[0].dport" }] });

    const other = await api.otherAccount();
    expect(await apiError(other.firewall.get(group.id))).toBeInstanceOf(NotFoundError);
    expect(
      await apiError(other.firewall.update(group.id, { name: "mine", rules: [] })),
    ).toBeInstanceOf(NotFoundError);
    expect(await apiError(other.firewall.delete(group.id))).toBeInstanceOf(NotFoundError);
    expect((await api.client.firewall.get(group.id)).name).toBe("keeper");
  });
});

describe("attaching groups to servers", () => {
  it("attaches and detaches idempotently; the server and the group both show it", async () => {
    const group = await create({
      name: "attach",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }],
    });
    expect((await api.client.firewall.attachServer(group.id, server)).success).toBe(true);
    expect((await api.client.firewall.attachServer(group.id, server)).success).toBe(true);
    expect((await api.client.firewall.get(group.id)).servers.map((s) => s.id)).toEqual([server]);
    const attached = await api.client.servers.get(server);
    expect(attached.security_groups.filter((g) => g.id === group.id)).toEqual([
      expect.objectContaining({ name: "attach", rules: group.rules }),
    ]);

    expect((await api.client.firewall.detachServer(group.id, server)).success).toBe(true);
    expect((await api.client.firewall.detachServer(group.id, server)).success).toBe(true);
    expect((await api.client.firewall.get(group.id)).servers).toEqual([]);
    expect(
      (await api.client.servers.get(server)).security_groups.some((g) => g.id === group.id),
    ).toBe(false);
  });

  it("answers 404 for an unknown group or server, or another account's", async () => {
    const group = await create({ name: "lonely", rules: [] });
    const other = await api.otherAccount();
    const [foreign] = await other.servers.create({
      plan_id: 1,
      image: "debian-12",
      user_defined_name: "far",
    });
    for (const call of [
      api.client.firewall.attachServer(group.id, 999999),
      api.client.firewall.attachServer(999999, server),
      api.client.firewall.attachServer(group.id, foreign?.id ?? 0),
      api.client.firewall.detachServer(group.id, foreign?.id ?? 0),
      other.firewall.attachServer(group.id, foreign?.id ?? 0),
    ]) {
      expect(await apiError(call)).toBeInstanceOf(NotFoundError);
    }
    expect((await api.client.firewall.get(group.id)).servers).toEqual([]);
  });

  it("refuses to delete a group still attached (409), then deletes it once detached", async () => {
    const group = await create({ name: "sticky", rules: [] });
    await api.client.firewall.attachServer(group.id, server);
    const error = await apiError(api.client.firewall.delete(group.id));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toContain(String(server));
    await api.client.firewall.detachServer(group.id, server);
    expect((await api.client.firewall.delete(group.id)).success).toBe(true);
    expect(await apiError(api.client.firewall.get(group.id))).toBeInstanceOf(NotFoundError);
    expect(await apiError(api.client.firewall.delete(group.id))).toBeInstanceOf(NotFoundError);
  });
});

describe("POST /v1/firewall/groups/servers/:id", () => {
  it("switches the server's firewall on and off", async () => {
    await api.client.firewall.setServerFirewall(server, { firewall_enabled: true });
    expect((await api.client.servers.get(server)).firewall_enabled).toBe(true);
    await api.client.firewall.setServerFirewall(server, { firewall_enabled: false });
    expect((await api.client.servers.get(server)).firewall_enabled).toBe(false);
  });

  it("answers 404 for an unknown server and 400 for a bad body", async () => {
    expect(
      await apiError(api.client.firewall.setServerFirewall(999999, { firewall_enabled: true })),
    ).toBeInstanceOf(NotFoundError);
    const other = await api.otherAccount();
    expect(
      await apiError(other.firewall.setServerFirewall(server, { firewall_enabled: true })),
    ).toBeInstanceOf(NotFoundError);
    const bad = await api.emulator.call("POST", `/v1/firewall/groups/servers/${server}`, {
      json: { firewall_enabled: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ field: "firewall_enabled" }] });
    const empty = await api.emulator.call("POST", `/v1/firewall/groups/servers/${server}`, {
      json: {},
    });
    expect(empty.body).toMatchObject({
      errors: [{ field: "firewall_enabled", message: "is required" }],
    });
    expect((await api.client.servers.get(server)).firewall_enabled).toBe(false);
  });
});

describe("permissions and authentication", () => {
  it("lets firewall:read read but not write; servers:write does not attach groups", async () => {
    const group = await create({ name: "guarded-group", rules: [] });
    const reader = api.clientWith(
      await api.keyWith(["firewall:read", "servers:read", "servers:write"]),
    );
    expect((await reader.firewall.get(group.id)).name).toBe("guarded-group");
    expect((await reader.firewall.listPage()).total_count).toBeGreaterThan(0);
    for (const call of [
      reader.firewall.create({ name: "x", rules: [] }),
      reader.firewall.update(group.id, { name: "x", rules: [] }),
      reader.firewall.delete(group.id),
      reader.firewall.attachServer(group.id, server),
      reader.firewall.detachServer(group.id, server),
      reader.firewall.setServerFirewall(server, { firewall_enabled: true }),
    ]) {
      const error = await apiError(call);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toMatch(/firewall:write/);
    }
    const tagsOnly = api.clientWith(await api.keyWith(["tags:read"]));
    expect(await apiError(tagsOnly.firewall.listPage())).toBeInstanceOf(ForbiddenError);
    expect((await api.client.firewall.get(group.id)).servers).toEqual([]);
  });

  it("answers 401 to an unknown key", async () => {
    expect(await apiError(api.clientWith("cik_nope").firewall.listAll())).toBeInstanceOf(
      UnauthorizedError,
    );
  });
});
