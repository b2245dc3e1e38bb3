/**
 * Adopting existing objects with `adoptId`, in-process against the emulator: for each resource
 * that supports it, adoption fixes up what can change in place, refuses (changing nothing) what
 * would need a replacement, fails clearly for an id that does not exist, and `diff` never
 * counts `adoptId` as a change, but refuses a replacement that would adopt and then delete the
 * object it replaces. Server transitions happen only when the test advances the emulator.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { generateEd25519KeyPair, parsePublicKey } from "../../src/lib/sshkeys";
import { onHost, resetHost } from "../../src/provider";
import { operations as roleOperations } from "../../src/resources/role/provider";
import { operations as securityGroupOperations } from "../../src/resources/security-group/provider";
import { operations as serverOperations } from "../../src/resources/server/provider";
import { operations as sshKeyOperations } from "../../src/resources/ssh-key/provider";
import { operations as tagOperations } from "../../src/resources/tag/provider";
import {
  drivingTransitions,
  existingServerIn,
  newSessionFor,
  startTestEmulator,
  type TestEmulator,
} from "../support/emulator";
import { checkedInputs, PROVIDER, rejection } from "../support/implementations";

const role = onHost(roleOperations);
const securityGroup = onHost(securityGroupOperations);
const server = onHost(serverOperations);
const sshKey = onHost(sshKeyOperations);
const tag = onHost(tagOperations);

let emulator: TestEmulator;
let api: CloudInfraClient;

beforeAll(async () => {
  emulator = await startTestEmulator({ lifecycle: { mode: "manual" } });
  api = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
});

beforeEach(async () => {
  await newSessionFor(emulator);
});

afterAll(async () => {
  await api?.close();
  await resetHost();
  await emulator?.close();
});

/** The API calls other than reads that `work` made (what it changed, or tried to). */
async function writesDuring(work: () => Promise<unknown>): Promise<string[]> {
  await emulator.call("DELETE", "/_emulator/requests");
  await work();
  return emulator.admin
    .requests(10_000)
    .filter((r) => r.path.startsWith("/v1/") && r.method !== "GET")
    .map((r) => `${r.method} ${r.route ?? r.path}`);
}

const existingServer = (name: string) => existingServerIn(emulator, api, name);
const driving = <T>(id: number, work: Promise<T>) => drivingTransitions(emulator, api, id, work);

describe("Server adoption", () => {
  it("adopts a server and renames, firewalls, attaches and stops it in place", async () => {
    const live = await existingServer("legacy-web");
    await api.firewall.create({ name: "adopt-ssh", rules: [] });
    const group = (await api.firewall.listAll()).find((g) => g.name === "adopt-ssh");
    const serversBefore = (await api.servers.list()).length;

    const props = await checkedInputs(server, {
      name: "web",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: true,
      securityGroupIds: [group?.id ?? 0],
      powerState: "stopped",
      adoptId: String(live.id),
    });
    expect(props["adoptId"]).toBe(live.id);
    const { id, outs } = await driving(live.id, server.create(props));

    expect(id).toBe(String(live.id));
    const now = await api.servers.get(live.id);
    expect(now.user_defined_name).toBe("web");
    expect(now.firewall_enabled).toBe(true);
    expect(now.status).toBe("stopped");
    expect(now.security_groups.map((g) => g.id)).toEqual([group?.id]);
    expect((await api.servers.list()).length).toBe(serversBefore);
    expect(outs).toMatchObject({
      serverId: live.id,
      name: "web",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: true,
      powerState: "stopped",
      securityGroupIds: [group?.id],
      status: "stopped",
      ip: live.ip,
      createdAt: live.created_at,
    });
    expect(outs).not.toHaveProperty("adoptId");

    // What the engine stores diffs clean against the program, and a refresh finds no drift.
    expect((await server.diff(id, outs ?? {}, props)).changes).toBe(false);
    const read = await server.read(id, { ...outs, __provider: PROVIDER });
    expect((await server.diff(id, read.props ?? {}, props)).changes).toBe(false);
  });

  it("adopting a server that already matches changes nothing", async () => {
    const live = await existingServer("as-is");
    const props = await checkedInputs(server, {
      name: "as-is",
      planId: 1,
      image: "ubuntu-24.04",
      adoptId: live.id,
    });
    expect(await writesDuring(() => server.create(props))).toEqual([]);
  });

  it("refuses a different plan and image, naming both, and changes nothing", async () => {
    const live = await existingServer("wrong-plan");
    const props = await checkedInputs(server, {
      name: "renamed-never",
      planId: 2,
      image: "debian-13",
      firewallEnabled: true,
      adoptId: live.id,
    });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(server.create(props));
    });
    expect(err?.message).toBe(
      `cloudinfra: adopting Server "renamed-never" (adoptId ${live.id}) failed: server ${live.id} differs in what cannot change in place: planId is 1, the program wants 2; image is "ubuntu-24.04", the program wants "debian-13". Nothing was changed: make the program match the live server, or remove adoptId to create a new server`,
    );
    expect(writes).toEqual([]);
    const after = await api.servers.get(live.id);
    expect([after.user_defined_name, after.firewall_enabled]).toEqual(["wrong-plan", false]);
  });

  it("fails for a server id that does not exist, creating nothing", async () => {
    const props = await checkedInputs(server, {
      name: "ghost",
      planId: 1,
      image: "ubuntu-24.04",
      adoptId: 987654,
    });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(server.create(props));
    });
    expect(err?.message).toBe(
      'cloudinfra: adopting Server "ghost" (adoptId 987654) failed: there is no server with id 987654 to adopt; nothing was created: correct adoptId, or remove it to create a new server',
    );
    expect(writes).toEqual([]);
  });

  it("refuses a server whose provisioning failed", async () => {
    emulator.admin.failProvisioning({ next: 1 });
    const [made] = await api.servers.create({
      plan_id: 1,
      image: "ubuntu-24.04",
      user_defined_name: "broken",
    });
    const id = made?.id ?? 0;
    await emulator.admin.advance({ server_id: id });
    expect((await api.servers.get(id)).status).toBe("error");
    const props = await checkedInputs(server, {
      name: "broken",
      planId: 1,
      image: "ubuntu-24.04",
      adoptId: id,
    });
    const err = await rejection(server.create(props));
    expect(err.message).toContain(
      `server ${id} is in status "error" and cannot be adopted: its provisioning failed`,
    );
    expect(err.message).toContain("nothing was changed");
  });

  it("diff ignores adoptId, but refuses a replacement that would adopt the server it replaces", async () => {
    const live = await existingServer("guarded");
    const props = await checkedInputs(server, {
      name: "guarded",
      planId: 1,
      image: "ubuntu-24.04",
      adoptId: live.id,
    });
    const { id, outs } = await server.create(props);
    const stored = { ...outs, __provider: PROVIDER };

    // Adding, changing or removing adoptId alone is no change.
    for (const adoptId of [live.id, live.id + 1000, undefined]) {
      const news = { ...props, adoptId };
      expect(await server.diff(id, stored, news)).toMatchObject({ changes: false, replaces: [] });
    }
    // An in-place change with adoptId still set is fine.
    expect(await server.diff(id, stored, { ...props, name: "guarded-2" })).toMatchObject({
      changes: true,
      replaces: [],
    });

    const err = await rejection(server.diff(id, stored, { ...props, image: "debian-13" }));
    expect(err.message).toBe(
      `cloudinfra: cannot replace Server ${id} while adoptId is ${id}: the replacement would adopt and then delete the same server; remove adoptId from the program first (the replacement is needed for: image)`,
    );
    // Without adoptId, or adopting another server, the replacement is planned as usual.
    for (const adoptId of [undefined, live.id + 1000]) {
      expect(
        await server.diff(id, stored, { ...props, image: "debian-13", adoptId }),
      ).toMatchObject({ changes: true, replaces: ["image"] });
    }
  });
});

describe("Tag adoption", () => {
  it("adopts a tag and renames, recolours, describes and re-tags it in place", async () => {
    const [s1, s2] = [await existingServer("tag-a"), await existingServer("tag-b")];
    const made = await api.tags.create({ name: "old-tag", color: "#112233", server_ids: [s1.id] });
    const props = await checkedInputs(tag, {
      name: "team-web",
      color: "#ABCDEF",
      data: "owner=web",
      serverIds: [s2.id],
      adoptId: made.id,
    });
    const { id, outs } = await tag.create(props);
    expect(id).toBe(String(made.id));
    expect(outs).toEqual({
      tagId: made.id,
      name: "team-web",
      color: "#abcdef",
      data: "owner=web",
      serverIds: [s2.id],
    });
    const live = (await api.tags.list()).find((t) => t.id === made.id);
    expect(live).toMatchObject({ name: "team-web", color: "#abcdef", data: "owner=web" });
    expect(live?.servers.map((s) => s.id)).toEqual([s2.id]);
    expect((await api.tags.list()).filter((t) => t.name === "team-web")).toHaveLength(1);
  });

  it("leaves the tag's servers alone when serverIds is left out", async () => {
    const s1 = await existingServer("tag-keep");
    const made = await api.tags.create({ name: "keep", color: "#000000", server_ids: [s1.id] });
    const props = await checkedInputs(tag, { name: "keep", color: "#ffffff", adoptId: made.id });
    const { outs } = await tag.create(props);
    expect(outs).not.toHaveProperty("serverIds");
    const live = (await api.tags.list()).find((t) => t.id === made.id);
    expect(live?.color).toBe("#ffffff");
    expect(live?.servers.map((s) => s.id)).toEqual([s1.id]);
  });

  it("fails for a tag id that does not exist, creating nothing", async () => {
    const props = await checkedInputs(tag, { name: "ghost", color: "#000000", adoptId: 424242 });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(tag.create(props));
    });
    expect(err?.message).toBe(
      'cloudinfra: adopting Tag "ghost" (adoptId 424242) failed: there is no tag with id 424242 to adopt; nothing was created: correct adoptId, or remove it to create a new tag',
    );
    expect(writes).toEqual([]);
  });

  it("diff ignores adoptId", async () => {
    const made = await api.tags.create({ name: "diff-tag", color: "#010101" });
    const props = await checkedInputs(tag, {
      name: "diff-tag",
      color: "#010101",
      adoptId: made.id,
    });
    const { id, outs } = await tag.create(props);
    for (const adoptId of [made.id, 1, undefined]) {
      expect((await tag.diff(id, { ...outs }, { ...props, adoptId })).changes).toBe(false);
    }
  });
});

describe("SshKey adoption", () => {
  const pair = generateEd25519KeyPair("ops@bastion");
  const other = generateEd25519KeyPair("someone@else");

  it("adopts an imported key with the same key material, whatever its comment", async () => {
    const { key } = await api.keys.create({
      name: "bastion",
      type: "import",
      public_key: pair.publicKey,
    });
    const [type, data] = pair.publicKey.split(" ");
    const props = await checkedInputs(sshKey, {
      name: "bastion",
      publicKey: `${type} ${data} another-comment`,
      adoptId: key.id,
    });
    let result: Awaited<ReturnType<typeof sshKey.create>> | undefined;
    const writes = await writesDuring(async () => {
      result = await sshKey.create(props);
    });
    expect(writes).toEqual([]);
    expect(result?.id).toBe(String(key.id));
    expect(result?.outs).toEqual({
      keyId: key.id,
      name: "bastion",
      publicKey: key.public_key,
      fingerprint: key.fingerprint,
      createdAt: key.created_at,
      generate: false,
    });
    expect((await sshKey.diff(String(key.id), { ...result?.outs }, props)).changes).toBe(false);
  });

  it("adopts a generated key without its private half, which the service no longer shows", async () => {
    const made = await api.keys.create({ name: "gen", type: "generate" });
    const props = await checkedInputs(sshKey, {
      name: "gen",
      generate: true,
      adoptId: made.key.id,
    });
    const { outs } = await sshKey.create(props);
    expect(outs).toMatchObject({
      keyId: made.key.id,
      generate: true,
      publicKey: made.key.public_key,
    });
    expect(outs).not.toHaveProperty("privateKey");
  });

  it("refuses another name or other key material, naming both with fingerprints, and changes nothing", async () => {
    const { key } = await api.keys.create({
      name: "mismatch",
      type: "import",
      public_key: other.publicKey,
    });
    const props = await checkedInputs(sshKey, {
      name: "deploy",
      publicKey: pair.publicKey,
      adoptId: key.id,
    });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(sshKey.create(props));
    });
    expect(err?.message).toBe(
      `cloudinfra: adopting SshKey "deploy" (adoptId ${key.id}) failed: SSH key ${key.id} differs in what cannot change in place: name is "mismatch", the program wants "deploy"; publicKey is the key ${key.fingerprint}, the program wants the key ${parsePublicKey(pair.publicKey).fingerprint}. Nothing was changed: make the program match the live SSH key, or remove adoptId to create a new SSH key`,
    );
    expect(writes).toEqual([]);
    expect(await api.keys.get(key.id)).toMatchObject({ name: "mismatch" });
  });

  it("fails for a key id that does not exist, creating nothing", async () => {
    const props = await checkedInputs(sshKey, { name: "ghost", generate: true, adoptId: 777 });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(sshKey.create(props));
    });
    expect(err?.message).toMatch(
      /^cloudinfra: adopting SshKey "ghost" \(adoptId 777\) failed: there is no SSH key with id 777 to adopt; nothing was created/,
    );
    expect(writes).toEqual([]);
  });

  it("diff ignores adoptId, but refuses a replacement that would adopt the key it replaces", async () => {
    const made = await api.keys.create({ name: "guard-key", type: "generate" });
    const id = String(made.key.id);
    const props = await checkedInputs(sshKey, { name: "guard-key", generate: true, adoptId: id });
    const { outs } = await sshKey.create(props);
    const stored = { ...outs, __provider: PROVIDER };
    for (const adoptId of [made.key.id, undefined]) {
      expect((await sshKey.diff(id, stored, { ...props, adoptId })).changes).toBe(false);
    }
    const err = await rejection(sshKey.diff(id, stored, { ...props, name: "guard-key-2" }));
    expect(err.message).toBe(
      `cloudinfra: cannot replace SshKey ${id} while adoptId is ${id}: the replacement would adopt and then delete the same SSH key; remove adoptId from the program first (the replacement is needed for: name)`,
    );
    expect(
      await sshKey.diff(id, stored, { ...props, name: "guard-key-2", adoptId: undefined }),
    ).toMatchObject({ changes: true, replaces: ["name"] });
  });
});

describe("Role adoption", () => {
  it("adopts a role and renames it, describes it and sets its permissions in place", async () => {
    const catalogue = await api.iam.listPermissions();
    const idOf = (name: string) => catalogue.find((p) => p.name === name)?.id ?? 0;
    const made = await api.iam.createRole({
      name: "legacy-ops",
      permission_ids: [idOf("servers:read")],
    });
    const props = await checkedInputs(role, {
      name: "ops",
      description: "operators",
      permissions: ["tags:write", "Tags:Read"],
      adoptId: made.id,
    });
    const { id, outs } = await role.create(props);
    expect(id).toBe(String(made.id));
    expect(outs).toEqual({
      roleId: made.id,
      name: "ops",
      description: "operators",
      permissions: ["tags:read", "tags:write"],
      permissionIds: [idOf("tags:read"), idOf("tags:write")].sort((a, b) => a - b),
    });
    const live = (await api.iam.listRoles()).find((r) => r.id === made.id);
    expect(live).toMatchObject({ name: "ops", description: "operators" });
    expect(live?.role_permissions.map((p) => p.permission_id).sort((a, b) => a - b)).toEqual(
      outs?.["permissionIds"],
    );
    expect((await role.diff(id, { ...outs }, props)).changes).toBe(false);
  });

  it("refuses a system role, changing nothing", async () => {
    const system = (await api.iam.listRoles()).find((r) => r.system_role);
    if (system === undefined) throw new Error("the emulator has no system role");
    const props = await checkedInputs(role, { name: "mine", permissions: [], adoptId: system.id });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(role.create(props));
    });
    expect(err?.message).toBe(
      `cloudinfra: adopting Role "mine" (adoptId ${system.id}) failed: ${JSON.stringify(system.name)} is a system role (role id ${system.id}): the service defines it and a Role resource cannot adopt, change or delete it; give users the system role by passing its id as a User's roleId; nothing was changed`,
    );
    expect(writes).toEqual([]);
  });

  it("fails for a role id that does not exist, creating nothing", async () => {
    const props = await checkedInputs(role, { name: "ghost", permissions: [], adoptId: 5555 });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(role.create(props));
    });
    expect(err?.message).toMatch(
      /^cloudinfra: adopting Role "ghost" \(adoptId 5555\) failed: there is no role with id 5555 to adopt; nothing was created/,
    );
    expect(writes).toEqual([]);
  });

  it("diff ignores adoptId", async () => {
    const made = await api.iam.createRole({ name: "diff-role", permission_ids: [] });
    const props = await checkedInputs(role, {
      name: "diff-role",
      permissions: [],
      adoptId: made.id,
    });
    const { id, outs } = await role.create(props);
    for (const adoptId of [made.id, 3, undefined]) {
      expect((await role.diff(id, { ...outs }, { ...props, adoptId })).changes).toBe(false);
    }
  });
});

describe("SecurityGroup adoption", () => {
  it("adopts a group and renames it and replaces its rules in place; attached servers stay", async () => {
    const attachedTo = await existingServer("sg-host");
    await api.firewall.create({
      name: "legacy-fw",
      description: "old",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "23" }],
    });
    const made = (await api.firewall.listAll()).find((g) => g.name === "legacy-fw");
    const groupId = made?.id ?? 0;
    await api.firewall.attachServer(groupId, attachedTo.id);

    const props = await checkedInputs(securityGroup, {
      name: "ssh-only",
      rules: [{ action: "accept", proto: "TCP", dport: 22, source: "10.0.0.0/8" }],
      adoptId: groupId,
    });
    const { id, outs } = await securityGroup.create(props);
    expect(id).toBe(String(groupId));
    expect(outs).toEqual({
      securityGroupId: groupId,
      name: "ssh-only",
      description: "",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" }],
    });
    const live = await api.firewall.get(groupId);
    expect(live).toMatchObject({ name: "ssh-only", description: "" });
    expect(live.rules.map((r) => [r.action, r.proto, r.dport, r.source])).toEqual([
      ["ACCEPT", "tcp", "22", "10.0.0.0/8"],
    ]);
    expect(live.servers.map((s) => s.id)).toEqual([attachedTo.id]);
    expect((await securityGroup.diff(id, { ...outs }, props)).changes).toBe(false);
  });

  it("fails for a group id that does not exist, creating nothing", async () => {
    const props = await checkedInputs(securityGroup, { name: "ghost", rules: [], adoptId: 31337 });
    let err: Error | undefined;
    const writes = await writesDuring(async () => {
      err = await rejection(securityGroup.create(props));
    });
    expect(err?.message).toMatch(
      /^cloudinfra: adopting SecurityGroup "ghost" \(adoptId 31337\) failed: there is no security group with id 31337 to adopt; nothing was created/,
    );
    expect(writes).toEqual([]);
  });

  it("diff ignores adoptId", async () => {
    await api.firewall.create({ name: "diff-fw", rules: [] });
    const made = (await api.firewall.listAll()).find((g) => g.name === "diff-fw");
    const props = await checkedInputs(securityGroup, {
      name: "diff-fw",
      rules: [],
      adoptId: made?.id,
    });
    const { id, outs } = await securityGroup.create(props);
    for (const adoptId of [made?.id, 2, undefined]) {
      expect((await securityGroup.diff(id, { ...outs }, { ...props, adoptId })).changes).toBe(
        false,
      );
    }
  });
});

describe("check", () => {
  it("refuses an adoptId that is not an id, on adoptId", async () => {
    const result = await tag.check({}, { name: "t", color: "#000000", adoptId: "web-1" });
    expect(result.failures).toEqual([
      {
        property: "adoptId",
        reason:
          'adoptId: expected the id of an existing object to adopt (a positive integer, or its decimal text), got "web-1"',
      },
    ]);
  });
});

describe("read by id alone (X.get)", () => {
  it("a Tag read with nothing but __provider reports every output, membership included", async () => {
    const s1 = await existingServer("get-tag");
    const made = await api.tags.create({
      name: "looked-up",
      color: "#ABCDEF",
      server_ids: [s1.id],
    });
    const read = await tag.read(String(made.id), { __provider: PROVIDER });
    expect(read.props).toEqual({
      tagId: made.id,
      name: "looked-up",
      color: "#abcdef",
      data: "",
      serverIds: [s1.id],
    });
    // A refresh of a tag whose membership the program does not manage still leaves it out.
    const { serverIds: _ignored, ...unmanaged } = read.props ?? {};
    const refreshed = await tag.read(String(made.id), { ...unmanaged, __provider: PROVIDER });
    expect(refreshed.props).not.toHaveProperty("serverIds");
  });
});
