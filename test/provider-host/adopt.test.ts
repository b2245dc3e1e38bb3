import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { NotFoundError } from "../../src/api/errors";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { drivingTransitions, existingServerIn, type TestEmulator } from "../support/emulator";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startFixtureHost,
  startProviderFixture,
  urnOf,
} from "../support/provider-fixture";

type Kind = "Server" | "Tag" | "SshKey" | "Role" | "SecurityGroup" | "SecurityGroupAttachment";

let fx: ProviderFixture;
let emulator: TestEmulator;
let client: CloudInfraClient;
let host: ProviderHost;

beforeAll(async () => {
  fx = await startProviderFixture({ emulator: { lifecycle: { mode: "manual" } } });
  ({ emulator, client, host } = fx);
}, 60_000);

afterAll(async () => {
  await fx?.close();
});

const existingServer = (name: string) => existingServerIn(emulator, client, name);
const driving = <T>(id: number, work: Promise<T>) => drivingTransitions(emulator, client, id, work);

/**
 * `pulumi up` of a new resource with `adoptId` (Check, Create), then `pulumi refresh` in a new
 * host: the refresh must find exactly what the create recorded, and the program no change.
 */
async function adoptThroughHost(kind: Kind, name: string, args: Props) {
  const created = await fx.up(kind, name, args);
  const { urn, inputs } = created;
  const refresher = await startFixtureHost({ config: fx.config });
  try {
    const refreshed = await refresher.read(urn, created.id, created.properties, inputs);
    expect(refreshed.id).toBe(created.id);
    expect(refreshed.properties).toEqual(created.properties);
    const plan = await refresher.diff(urn, created.id, refreshed.properties, inputs);
    expect(plan).toEqual({ changes: "none", replaces: [], deleteBeforeReplace: false });
  } finally {
    await refresher.close();
  }
  return created;
}

describe("adoptId through the Pulumi dynamic-provider host", () => {
  it("adopts a Server, fixes it up in place, refreshes clean, refuses to replace it onto itself and deletes it", async () => {
    const live = await existingServer("console-made");
    const adopted = await adoptThroughHost("Server", "web", {
      name: "web",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: true,
      adoptId: String(live.id),
    });
    expect(adopted.id).toBe(String(live.id));
    expect(adopted.properties).toMatchObject({
      serverId: live.id,
      name: "web",
      firewallEnabled: true,
      status: "running",
    });
    expect(adopted.properties).not.toHaveProperty("adoptId");
    const now = await client.servers.get(live.id);
    expect([now.user_defined_name, now.firewall_enabled]).toEqual(["web", true]);
    expect((await client.servers.list()).filter((s) => s.user_defined_name === "web")).toHaveLength(
      1,
    );

    // A change that replaces the server while the program still adopts it: the plan fails.
    const replacing: Props = { ...adopted.inputs, image: "debian-13" };
    await expect(host.diff(adopted.urn, adopted.id, adopted.properties, replacing)).rejects.toThrow(
      `cannot replace Server ${live.id} while adoptId is ${live.id}: the replacement would adopt and then delete the same server; remove adoptId from the program first (the replacement is needed for: image)`,
    );
    // With adoptId removed, the same change is an ordinary replacement.
    const { adoptId: _dropped, ...withoutAdopt } = replacing;
    expect(await host.diff(adopted.urn, adopted.id, adopted.properties, withoutAdopt)).toEqual({
      changes: "some",
      replaces: ["image"],
      deleteBeforeReplace: false,
    });

    await driving(live.id, host.delete(adopted.urn, adopted.id, adopted.properties));
    await expect(client.servers.get(live.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("adopts a Tag, an SshKey, a Role and a SecurityGroup, refreshes each clean and deletes each", async () => {
    const tag = await client.tags.create({ name: "legacy-tag", color: "#000000" });
    const pair = generateEd25519KeyPair("ops@host");
    const { key } = await client.keys.create({
      name: "ops",
      type: "import",
      public_key: pair.publicKey,
    });
    const role = await client.iam.createRole({ name: "legacy-role", permission_ids: [] });
    await client.firewall.create({ name: "legacy-fw", rules: [] });
    const group = (await client.firewall.listAll()).find((g) => g.name === "legacy-fw");

    const adoptedTag = await adoptThroughHost("Tag", "tag", {
      name: "web",
      color: "#FF00AA",
      adoptId: tag.id,
    });
    expect(adoptedTag.properties).toMatchObject({ tagId: tag.id, name: "web", color: "#ff00aa" });
    const adoptedKey = await adoptThroughHost("SshKey", "key", {
      name: "ops",
      publicKey: pair.publicKey,
      adoptId: key.id,
    });
    expect(adoptedKey.properties).toMatchObject({ keyId: key.id, fingerprint: key.fingerprint });
    const adoptedRole = await adoptThroughHost("Role", "role", {
      name: "readers",
      permissions: ["servers:read"],
      adoptId: role.id,
    });
    expect(adoptedRole.properties).toMatchObject({ roleId: role.id, name: "readers" });
    const adoptedGroup = await adoptThroughHost("SecurityGroup", "group", {
      name: "ssh",
      rules: [{ action: "ACCEPT", proto: "tcp", dport: 22 }],
      adoptId: group?.id,
    });
    expect(adoptedGroup.properties).toMatchObject({ securityGroupId: group?.id, name: "ssh" });

    // The live objects are the adopted ones, changed in place; nothing new was made.
    expect((await client.tags.list()).map((t) => [t.id, t.name, t.color])).toEqual([
      [tag.id, "web", "#ff00aa"],
    ]);
    const liveRole = (await client.iam.listRoles()).find((r) => r.id === role.id);
    expect(liveRole?.name).toBe("readers");
    expect(liveRole?.role_permissions.map((p) => p.permission?.name)).toEqual(["servers:read"]);
    const liveGroup = await client.firewall.get(group?.id ?? 0);
    expect([liveGroup.name, liveGroup.rules.map((r) => r.dport)]).toEqual(["ssh", ["22"]]);
    expect((await client.keys.list()).map((k) => k.id)).toEqual([key.id]);

    await host.delete(adoptedTag.urn, adoptedTag.id, adoptedTag.properties);
    await host.delete(adoptedKey.urn, adoptedKey.id, adoptedKey.properties);
    await host.delete(adoptedRole.urn, adoptedRole.id, adoptedRole.properties);
    await host.delete(adoptedGroup.urn, adoptedGroup.id, adoptedGroup.properties);
    expect(await client.tags.list()).toEqual([]);
    expect(await client.keys.list()).toEqual([]);
    expect((await client.iam.listRoles()).some((r) => r.id === role.id)).toBe(false);
    await expect(client.firewall.get(group?.id ?? 0)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("fails an adoption of an id that does not exist, naming the kind and the id", async () => {
    const urn = urnOf("Tag", "ghost");
    const checked = await host.check(
      urn,
      {},
      fx.withProvider("Tag", { name: "g", color: "#000000", adoptId: 99 }),
    );
    await expect(host.create(urn, checked.inputs)).rejects.toThrow(
      'adopting Tag "g" (adoptId 99) failed: there is no tag with id 99 to adopt; nothing was created',
    );
    expect(await client.tags.list()).toEqual([]);
  });
});
