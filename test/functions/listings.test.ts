/**
 * The list data sources (issue 25, item 4): getServers, getTags, getSecurityGroups, getSshKeys and
 * getRoles, with their filters, each served from one list call, in both flavours: in the program's
 * process (the main entry) and through the native plugin's Invoke, which must answer the same.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getRoles,
  getSecurityGroups,
  getSecurityGroupsOutput,
  getServers,
  getSshKeys,
  getTags,
  InvalidArgumentError,
} from "../../src/functions";
import type { TestEmulator } from "../support/emulator";
import { ProviderHost } from "../support/local-engine/provider-host.ts";
import { makeSecret } from "../support/local-engine/values.ts";
import { programEnv, ROOT } from "../support/programs";
import { failureOf, startEmulatorForFunctions, stopAll } from "./helpers";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWamzEpA9QM6xDMpzCZ/ARfSkHz2f+XuRPtrkoIKJpT";
let emulator: TestEmulator;
let host: ProviderHost;
const ids: Record<string, number> = {};

async function made(method: string, path: string, json: unknown): Promise<number> {
  const answer = await emulator.call(method, path, { json });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  const body = answer.body as { id?: number; key?: { id: number }; role?: { id: number } };
  return body.id ?? body.key?.id ?? body.role?.id ?? 0;
}

/** The requests the emulator answered while `run` ran, as `METHOD route`. */
async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  await emulator.call("DELETE", "/_emulator/requests");
  await run();
  const log = await emulator.call("GET", "/_emulator/requests?limit=100");
  return (log.body as { entries: { method: string; route?: string; path?: string }[] }).entries
    .map((e) => `${e.method} ${e.route ?? e.path}`)
    .filter((r) => !r.includes("/_emulator/"));
}

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
  await emulator.call("POST", "/_emulator/seed", { json: { servers: 3 } });
  const servers = (await emulator.call("GET", "/v1/servers")).body as { id: number }[];
  const [web1, web2, db1] = servers.map((s) => s.id);
  ids["web1"] = web1 ?? 0;
  ids["web2"] = web2 ?? 0;
  ids["db1"] = db1 ?? 0;
  await emulator.call("POST", `/v1/servers/${ids["web1"]}`, {
    json: { user_defined_name: "web-1" },
  });
  await emulator.call("POST", `/v1/servers/${ids["web2"]}`, {
    json: { user_defined_name: "web-2" },
  });
  await emulator.call("POST", `/v1/servers/${ids["db1"]}`, { json: { user_defined_name: "db-1" } });
  await emulator.call("POST", `/v1/servers/${ids["web2"]}/management`, {
    json: { action: "stop" },
  });
  await emulator.call("POST", "/_emulator/lifecycle/advance", { json: {} });
  ids["web"] = await made("POST", "/v1/tags", {
    name: "Web",
    color: "#0EA5E9",
    server_ids: [ids["web1"], ids["web2"]],
  });
  ids["env"] = await made("POST", "/v1/tags", { name: "env-prod", color: "#FF0000", data: "prod" });
  await emulator.call("POST", "/v1/firewall/groups", {
    json: {
      name: "ssh",
      description: "SSH in",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" }],
    },
  });
  await emulator.call("POST", "/v1/firewall/groups", { json: { name: "web", rules: [] } });
  const groups = (await emulator.call("GET", "/v1/firewall/groups")).body as {
    data: { id: number; name: string }[];
  };
  ids["ssh"] = groups.data.find((g) => g.name === "ssh")?.id ?? 0;
  ids["webGroup"] = groups.data.find((g) => g.name === "web")?.id ?? 0;
  await emulator.call("POST", `/v1/firewall/groups/${ids["ssh"]}/servers/${ids["db1"]}`);
  ids["alice"] = await made("POST", "/v1/keys", {
    name: "alice",
    type: "import",
    public_key: `${KEY} alice@laptop`,
  });
  const permissions = (await emulator.call("GET", "/v1/account/permissions")).body as {
    id: number;
    name: string;
  }[];
  ids["deployer"] = await made("POST", "/v1/account/roles", {
    name: "deployer",
    description: "CI",
    permission_ids: permissions
      .filter((p) => p.name === "servers:read" || p.name === "servers:write")
      .map((p) => p.id),
  });

  host = await ProviderHost.start({
    config: {},
    cwd: ROOT,
    project: "p",
    env: programEnv(),
    plugin: {
      argv: [join(ROOT, "dist", "native", "plugin", "main.js"), "127.0.0.1:1"],
      name: "pulumi-resource-cloudinfra",
    },
  });
  await host.configurePlugin({
    endpoint: emulator.endpoint,
    apiKey: makeSecret(emulator.apiKey),
    caCert: emulator.caCert,
  });
}, 120_000);

afterAll(async () => {
  await host?.close();
  await stopAll(emulator);
});

describe("getServers", () => {
  it("lists every server by id, each as getServer shows it, from one list call", async () => {
    let result: Awaited<ReturnType<typeof getServers>> | undefined;
    expect(
      await requestsOf(async () => {
        result = await getServers();
      }),
    ).toEqual(["GET /v1/servers"]);
    expect(result?.ids).toEqual([ids["web1"], ids["web2"], ids["db1"]]);
    expect(result?.names).toEqual(["web-1", "web-2", "db-1"]);
    expect(result?.servers[0]).toMatchObject({
      id: ids["web1"],
      name: "web-1",
      status: "running",
      tags: [{ id: ids["web"], name: "Web", color: "#0EA5E9" }],
      securityGroupIds: [],
    });
  });

  it("filters by name pattern, tag (any letter case) and status, all of them together", async () => {
    expect((await getServers({ nameRegex: "^web-" })).names).toEqual(["web-1", "web-2"]);
    expect((await getServers({ tag: "web" })).names).toEqual(["web-1", "web-2"]);
    expect((await getServers({ tag: "web", status: "stopped" })).names).toEqual(["web-2"]);
    expect((await getServers({ status: "running", nameRegex: "db" })).names).toEqual(["db-1"]);
    expect(await getServers({ tag: "nope" })).toEqual({ servers: [], ids: [], names: [] });
  });

  it("refuses a bad pattern or an unknown argument, naming it", async () => {
    const bad = await failureOf(getServers({ nameRegex: "(" }));
    expect(bad).toBeInstanceOf(InvalidArgumentError);
    expect(bad.message).toMatch(
      /^getServers: invalid argument nameRegex: not a valid regular expression/,
    );
    const typo = await failureOf(getServers({ tags: "web" } as never));
    expect(typo.message).toBe('getServers: unknown argument "tags"');
  });
});

describe("getTags", () => {
  it("lists the tags with their servers and data, and filters by name", async () => {
    expect(await requestsOf(() => getTags())).toEqual(["GET /v1/tags"]);
    expect(await getTags()).toEqual({
      tags: [
        { id: ids["web"], name: "Web", color: "#0EA5E9", serverIds: [ids["web1"], ids["web2"]] },
        { id: ids["env"], name: "env-prod", color: "#FF0000", data: "prod", serverIds: [] },
      ],
      ids: [ids["web"], ids["env"]],
      names: ["Web", "env-prod"],
    });
    expect((await getTags({ nameRegex: "^env-" })).ids).toEqual([ids["env"]]);
  });
});

describe("getSecurityGroups", () => {
  it("lists the groups with their rules as SecurityGroup spells them, and filters by server", async () => {
    expect(await requestsOf(() => getSecurityGroups())).toEqual(["GET /v1/firewall/groups"]);
    const all = await getSecurityGroups();
    expect(all.names).toEqual(["ssh", "web"]);
    expect(all.securityGroups[0]).toEqual({
      id: ids["ssh"],
      name: "ssh",
      description: "SSH in",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" }],
      serverIds: [ids["db1"]],
    });
    expect(all.securityGroups[1]).toMatchObject({ name: "web", description: "", rules: [] });
    expect((await getSecurityGroups({ serverId: String(ids["db1"]) })).names).toEqual(["ssh"]);
    const output = await new Promise((ok) =>
      getSecurityGroupsOutput({ serverId: Promise.resolve(ids["web1"]) }).apply(ok),
    );
    expect(output).toEqual({ securityGroups: [], ids: [], names: [] });
  });
});

describe("getSshKeys", () => {
  it("lists the keys (public halves only) and filters by name and fingerprint", async () => {
    expect(await requestsOf(() => getSshKeys())).toEqual(["GET /v1/keys"]);
    const all = await getSshKeys();
    expect(all.names).toEqual(["alice"]);
    const alice = all.sshKeys[0];
    // The public key as the service keeps it (the emulator keeps no comment).
    expect(alice).toMatchObject({ id: ids["alice"], name: "alice", publicKey: KEY });
    expect(alice?.fingerprint).toMatch(/^SHA256:/);
    expect((await getSshKeys({ fingerprint: alice?.fingerprint })).ids).toEqual([ids["alice"]]);
    expect((await getSshKeys({ fingerprint: "SHA256:nope" })).ids).toEqual([]);
    expect((await getSshKeys({ nameRegex: "^bob" })).ids).toEqual([]);
  });
});

describe("getRoles", () => {
  it("lists the system roles and the account's own, with permission names, and filters", async () => {
    const all = await getRoles();
    expect(all.names).toEqual(expect.arrayContaining(["Administrator", "Read only", "deployer"]));
    expect((await getRoles({ system: false })).roles).toEqual([
      {
        id: ids["deployer"],
        name: "deployer",
        description: "CI",
        system: false,
        permissions: ["servers:read", "servers:write"],
        permissionIds: expect.any(Array),
      },
    ]);
    expect((await getRoles({ system: true })).roles.every((r) => r.system)).toBe(true);
    expect((await getRoles({ nameRegex: "^Read only$" })).names).toEqual(["Read only"]);
    const requests = await requestsOf(() => getRoles());
    expect(requests[0]).toBe("GET /v1/account/roles");
    expect(requests.length).toBeLessThanOrEqual(2); // the catalogue only when a grant is unnamed
  });
});

describe("through the native plugin (cloudinfra:index:get...)", () => {
  it.each([
    ["getServers", () => getServers({ tag: "WEB" }), { tag: "WEB" }],
    ["getTags", () => getTags(), {}],
    ["getSecurityGroups", () => getSecurityGroups({ nameRegex: "s" }), { nameRegex: "s" }],
    ["getSshKeys", () => getSshKeys(), {}],
    ["getRoles", () => getRoles({ system: false }), { system: false }],
  ] as const)(
    "%s answers what the main entry's data source answers",
    async (name, direct, args) => {
      const native = await host.invoke(`cloudinfra:index:${name}`, args);
      expect(native).toEqual(JSON.parse(JSON.stringify(await direct())));
    },
  );
});
