/**
 * The SecurityGroupAttachment resource through the real dynamic-provider host, as the Pulumi
 * engine drives it, against an in-process emulator with two servers and two groups.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import type { TestEmulator } from "../support/emulator";
import { closeHostsCheckingLog, expectCleanRefresh } from "../support/provider-assertions";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startProviderFixture,
  UNKNOWN,
  urnOf,
} from "../support/provider-fixture";

let fx: ProviderFixture;
let emulator: TestEmulator;
let host: ProviderHost;
let api: CloudInfraClient;
let servers: [number, number];
let groups: [number, number];

const program = (args: Props) => fx.withProvider("SecurityGroupAttachment", args);

async function attachedTo(groupId: number): Promise<number[]> {
  return (await api.firewall.get(groupId)).servers.map((s) => s.id);
}

beforeAll(async () => {
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, host, client: api } = fx);
  await emulator.admin.seed({ servers: 2 });
  servers = (await api.servers.list()).map((s) => s.id).sort((a, b) => a - b) as [number, number];
  await api.firewall.create({ name: "a", rules: [] });
  await api.firewall.create({ name: "b", rules: [] });
  groups = (await api.firewall.listAll()).map((g) => g.id).sort((a, b) => a - b) as [
    number,
    number,
  ];
});

afterAll(async () => {
  await closeHostsCheckingLog(fx, "/v1/firewall/groups/", [emulator.apiKey]);
  expect(fx.errors.length).toBeGreaterThan(0);
  await fx.close();
});

describe("SecurityGroupAttachment through the Pulumi dynamic-provider host", () => {
  it("attaches, reads without drift, replaces on any change, and detaches", async () => {
    const [g1, g2] = groups;
    const [s1, s2] = servers;
    const urn = urnOf("SecurityGroupAttachment", "web");
    const checked = await host.check(
      urn,
      {},
      program({ securityGroupId: String(g1), serverId: String(s1) }),
    );
    expect(checked).toEqual({
      inputs: program({ securityGroupId: g1, serverId: s1 }),
      failures: [],
    });
    const created = await host.create(urn, checked.inputs);
    expect(created).toEqual({
      id: `${g1}/${s1}`,
      properties: program({ securityGroupId: g1, serverId: s1 }),
    });
    expect(await attachedTo(g1)).toEqual([s1]);

    const refreshed = await expectCleanRefresh(host, urn, created, checked.inputs);

    // Another server or another group is another attachment: replaced, the new one first.
    const moved = await host.check(
      urn,
      checked.inputs,
      program({ securityGroupId: g1, serverId: s2 }),
    );
    expect(await host.diff(urn, created.id, refreshed.properties, moved.inputs)).toEqual({
      changes: "some",
      replaces: ["serverId"],
      deleteBeforeReplace: false,
    });
    const regrouped = await host.check(
      urn,
      checked.inputs,
      program({ securityGroupId: g2, serverId: s1 }),
    );
    expect(
      (await host.diff(urn, created.id, refreshed.properties, regrouped.inputs)).replaces,
    ).toEqual(["securityGroupId"]);
    const replacement = await host.create(urn, moved.inputs);
    await host.delete(urn, created.id, refreshed.properties);
    expect(await attachedTo(g1)).toEqual([s2]);

    await host.delete(urn, replacement.id, replacement.properties);
    expect(await attachedTo(g1)).toEqual([]);
    // Detaching a pair that is already apart succeeds.
    await host.delete(urn, replacement.id, replacement.properties);
  });

  it("plans a preview with unknown values: check passes them through, diff plans a replacement", async () => {
    const urn = urnOf("SecurityGroupAttachment", "preview");
    expect(
      await host.check(urn, {}, program({ securityGroupId: UNKNOWN, serverId: servers[0] })),
    ).toEqual({
      inputs: program({ securityGroupId: UNKNOWN, serverId: servers[0] }),
      failures: [],
    });
    const olds = program({ securityGroupId: groups[0], serverId: servers[0] });
    expect(
      await host.diff(
        urn,
        `${groups[0]}/${servers[0]}`,
        olds,
        program({ securityGroupId: groups[0], serverId: UNKNOWN }),
      ),
    ).toEqual({ changes: "some", replaces: ["serverId"], deleteBeforeReplace: false });
  });

  it("recreates an attachment removed outside Pulumi: refresh drops it, the next up attaches again", async () => {
    const [g1] = groups;
    const [s1] = servers;
    const urn = urnOf("SecurityGroupAttachment", "removed");
    const checked = await host.check(urn, {}, program({ securityGroupId: g1, serverId: s1 }));
    const created = await host.create(urn, checked.inputs);
    await api.firewall.detachServer(g1, s1);

    const refreshed = await (await fx.startHost()).read(
      urn,
      created.id,
      created.properties,
      checked.inputs,
    );
    expect(refreshed.id).toBe("");
    // The engine, having dropped it, creates it again from the same program.
    const again = await host.create(urn, checked.inputs);
    expect(again.id).toBe(created.id);
    expect(await attachedTo(g1)).toEqual([s1]);
    expect((await host.read(urn, again.id, again.properties, checked.inputs)).id).toBe(again.id);
    await host.delete(urn, again.id, again.properties);
  });

  it("reads an attachment whose group was deleted as gone, and destroys it quietly", async () => {
    const made = await api.firewall.create({ name: "short-lived", rules: [] });
    expect(made.success).toBe(true);
    const group = (await api.firewall.listAll()).find((g) => g.name === "short-lived");
    if (group === undefined) throw new Error("the group was not created");
    const urn = urnOf("SecurityGroupAttachment", "orphan");
    const checked = await host.check(
      urn,
      {},
      program({ securityGroupId: group.id, serverId: servers[1] }),
    );
    const created = await host.create(urn, checked.inputs);
    await api.firewall.detachServer(group.id, servers[1]);
    await api.firewall.delete(group.id);
    expect((await host.read(urn, created.id, created.properties, checked.inputs)).id).toBe("");
    await host.delete(urn, created.id, created.properties);
  });

  it("says which side is missing when attaching fails", async () => {
    const urn = urnOf("SecurityGroupAttachment", "missing");
    const checked = await host.check(
      urn,
      {},
      program({ securityGroupId: groups[0], serverId: 9999 }),
    );
    const err = await fx.failure(host.create(urn, checked.inputs));
    expect(err.message).toContain(
      `creating SecurityGroupAttachment "${groups[0]}/9999" failed: server 9999 does not exist`,
    );
    expect(err.initFailed).toBeUndefined();
  });
});
