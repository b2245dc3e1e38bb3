/**
 * `X.get(name, id)` in a whole program: every kind is read by id alone, kept in the state as an
 * external resource, and every output the read reported holds its value in the program.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import { stripSecretsMap } from "../support/local-engine/values.ts";
import { expectExit, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

let fx: ProgramFixture;
beforeAll(async () => {
  fx = await startProgramFixture(join(ROOT, "test", "programs", "lookup"));
});
afterAll(async () => fx?.close());

it("reads every kind by id, with every reported output in the program, and destroys none of them", async () => {
  const { client } = fx;
  const [server] = await client.servers.create({
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: "looked-up",
  });
  if (!server) throw new Error("no server");
  const tag = await client.tags.create({
    name: "looked-up",
    color: "#ABCDEF",
    server_ids: [server.id],
  });
  const { key } = await client.keys.create({ name: "looked-up", type: "generate" });
  const role = await client.iam.createRole({ name: "looked-up", permission_ids: [] });
  await client.firewall.create({
    name: "looked-up",
    rules: [{ action: "ACCEPT", proto: "tcp", dport: "443" }],
  });
  const group = (await client.firewall.listAll()).find((g) => g.name === "looked-up");
  if (!group) throw new Error("no group");
  await client.firewall.attachServer(group.id, server.id);
  const ids: Record<string, string> = {
    Server: String(server.id),
    Tag: String(tag.id),
    SshKey: String(key.id),
    Role: String(role.id),
    SecurityGroup: String(group.id),
    SecurityGroupAttachment: `${group.id}/${server.id}`,
  };
  const engine = fx.engineWith({
    config: Object.fromEntries(Object.entries(ids).map(([k, v]) => [`lookup:${k}`, v])),
  });

  const up = await engine.up();
  expectExit(up, EXIT_OK);
  expect(up.steps.filter((s) => s.op === "read")).toHaveLength(6);
  for (const [kind, id] of Object.entries(ids)) {
    const state = engine.resources().find((r) => r.urn.endsWith(`::get-${kind}`));
    expect(state, kind).toMatchObject({ external: true, id });
    const reported = stripSecretsMap(state?.outputs ?? {});
    delete reported["__provider"];
    const inProgram = up.outputs[kind] as Record<string, unknown>;
    expect(Object.keys(reported).length, kind).toBeGreaterThan(1);
    for (const [name, value] of Object.entries(reported)) {
      expect({ kind, name, value: inProgram[name] }).toEqual({ kind, name, value });
    }
  }

  // What each read reports, from the id alone.
  const read = (kind: string) => {
    const outputs = stripSecretsMap(
      engine.resources().find((r) => r.urn.endsWith(`::get-${kind}`))?.outputs ?? {},
    );
    delete outputs["__provider"];
    return outputs;
  };
  expect(read("Server")).toMatchObject({
    serverId: server.id,
    name: "looked-up",
    planId: 1,
    image: "ubuntu-24.04",
    firewallEnabled: false,
    powerState: "running",
    status: "running",
    ip: server.ip,
  });
  // What other resources change on a server is getServer's, not an output (see Server).
  expect(read("Server")).not.toHaveProperty("tags");
  expect(read("Server")).not.toHaveProperty("attachedSecurityGroupIds");
  expect(read("Tag")).toEqual({
    tagId: tag.id,
    name: "looked-up",
    color: "#abcdef",
    data: "",
    serverIds: [server.id],
  });
  expect(read("SshKey")).toEqual({
    keyId: key.id,
    name: "looked-up",
    publicKey: key.public_key,
    fingerprint: key.fingerprint,
    createdAt: key.created_at,
    generate: false,
  });
  expect(read("Role")).toEqual({
    roleId: role.id,
    name: "looked-up",
    description: "",
    permissions: [],
    permissionIds: [],
  });
  expect(read("SecurityGroup")).toEqual({
    securityGroupId: group.id,
    name: "looked-up",
    description: "",
    rules: [{ action: "ACCEPT", proto: "tcp", dport: "443" }],
  });
  expect(read("SecurityGroupAttachment")).toEqual({
    securityGroupId: group.id,
    serverId: server.id,
  });
  // A lookup never changes anything.
  expect((await client.servers.get(server.id)).user_defined_name).toBe("looked-up");

  // Read resources are only dropped from the state: destroy deletes nothing in the service.
  const destroy = await engine.destroy();
  expectExit(destroy, EXIT_OK);
  expect(destroy.steps.filter((s) => s.op === "discard")).toHaveLength(6);
  expect(await client.servers.list()).toHaveLength(1);
  expect(await client.tags.list()).toHaveLength(1);
});
