/**
 * The SecurityGroup resource through the real dynamic-provider host, as the Pulumi engine drives
 * it, against an in-process emulator; the host's debug log must never show the API key.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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

const SSH = { action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" };
const HTTPS = { action: "ACCEPT", proto: "tcp", dport: "443" };

let fx: ProviderFixture;
let emulator: TestEmulator;
let host: ProviderHost;
let api: CloudInfraClient;

const program = (args: Props) => fx.withProvider("SecurityGroup", args);
const up = (name: string, args: Props) => fx.up("SecurityGroup", name, args);

async function groupsNamed(name: string) {
  return (await api.firewall.listAll({ limit: 100 })).filter((g) => g.name === name);
}

beforeAll(async () => {
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, host, client: api } = fx);
});

beforeEach(() => {
  emulator.admin.clearFaults();
});

afterAll(async () => {
  await closeHostsCheckingLog(fx, "/v1/firewall/groups", [emulator.apiKey]);
  expect(fx.errors.length).toBeGreaterThan(0);
  await fx.close();
});

describe("SecurityGroup through the Pulumi dynamic-provider host", () => {
  it("creates, reads without drift, updates the rules in place, and deletes", async () => {
    const created = await up("web", {
      name: "web",
      description: "web servers",
      rules: [
        { action: "accept", proto: "TCP", dport: "22-22", source: "10.0.0.0 / 8" },
        { action: "ACCEPT", proto: "tcp", dport: 443 },
      ],
    });
    expect(created.inputs).toEqual(
      program({ name: "web", description: "web servers", rules: [SSH, HTTPS] }),
    );
    const [live] = await groupsNamed("web");
    expect(created.id).toBe(String(live?.id));
    expect(created.properties).toEqual(
      program({
        securityGroupId: live?.id,
        name: "web",
        description: "web servers",
        rules: [SSH, HTTPS],
      }),
    );

    const refreshed = await expectCleanRefresh(host, created.urn, created, created.inputs);

    // Reordering is a change (rule order is meaningful), and like every change it is in place.
    const reordered = await host.check(
      created.urn,
      created.inputs,
      program({ name: "web-2", rules: [HTTPS, SSH, { action: "drop", proto: "any" }] }),
    );
    expect(
      await host.diff(created.urn, created.id, refreshed.properties, reordered.inputs),
    ).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await host.update(
      created.urn,
      created.id,
      refreshed.properties,
      reordered.inputs,
    );
    expect(updated.properties).toEqual(
      program({
        securityGroupId: live?.id,
        name: "web-2",
        description: "",
        rules: [HTTPS, SSH, { action: "DROP", proto: "any" }],
      }),
    );
    const after = await api.firewall.get(created.id);
    expect(after.rules.map((r) => [r.action, r.proto, r.dport ?? null])).toEqual([
      ["ACCEPT", "tcp", "443"],
      ["ACCEPT", "tcp", "22"],
      ["DROP", "any", null],
    ]);
    expect(
      (await host.read(created.urn, created.id, updated.properties, reordered.inputs)).inputs,
    ).toEqual(reordered.inputs);

    await host.delete(created.urn, created.id, updated.properties);
    expect(await groupsNamed("web-2")).toEqual([]);
    await host.delete(created.urn, created.id, updated.properties);
  });

  it("fails check on the rule and field at fault", async () => {
    const checked = await host.check(
      urnOf("SecurityGroup", "bad"),
      {},
      program({
        name: "bad",
        rules: [
          { action: "ACCEPT", proto: "tcp", dport: "22", source: "10.1.2.3/16" },
          { action: "ACCEPT", proto: "icmp", dport: "8" },
        ],
      }),
    );
    expect(checked.failures).toEqual([
      {
        property: "rules",
        reason:
          'rules[0].source: "10.1.2.3/16" has host bits set: the network is 10.1.0.0/16 (write that, or 10.1.2.3/32 for the single address)',
      },
      {
        property: "rules",
        reason: 'rules[1].dport: must be left out for proto "icmp", which has no ports',
      },
    ]);
  });

  it("plans a preview with unknown values: check passes them through, diff plans an in-place change", async () => {
    const urn = urnOf("SecurityGroup", "preview");
    expect(
      await host.check(urn, {}, program({ name: "p", rules: [{ ...SSH, source: UNKNOWN }] })),
    ).toEqual({
      inputs: program({ name: "p", rules: [{ ...SSH, source: UNKNOWN }] }),
      failures: [],
    });
    const olds = program({ securityGroupId: 4, name: "p", description: "", rules: [SSH] });
    expect(await host.diff(urn, "4", olds, program({ name: "p", rules: UNKNOWN }))).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("shows rules changed outside Pulumi as exactly that drift on refresh", async () => {
    const created = await up("drift", { name: "drift", rules: [SSH] });
    await api.firewall.update(created.id, {
      name: "drift",
      rules: [{ action: "DROP", proto: "tcp", dport: "22", source: "10.0.0.0/8" }],
    });
    const refreshed = await (await fx.startHost()).read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    const drifted = [{ ...SSH, action: "DROP" }];
    expect(refreshed.properties).toEqual({ ...created.properties, rules: drifted });
    expect(refreshed.inputs).toEqual({ ...created.inputs, rules: drifted });
    expect(await host.diff(created.urn, created.id, refreshed.properties, created.inputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    await host.update(created.urn, created.id, refreshed.properties, created.inputs);
    expect((await api.firewall.get(created.id)).rules.map((r) => r.action)).toEqual(["ACCEPT"]);
    await host.delete(created.urn, created.id, created.properties);
  });

  it("shows a group deleted outside Pulumi as gone on refresh", async () => {
    const created = await up("doomed", { name: "doomed", rules: [] });
    await api.firewall.delete(created.id);
    const refresher = await fx.startHost();
    expect(
      await refresher.read(created.urn, created.id, created.properties, created.inputs),
    ).toMatchObject({ id: "" });
    await refresher.delete(created.urn, created.id, created.properties);
  });

  it("makes exactly one group when the create's answer is lost", async () => {
    emulator.admin.setFaults({
      seed: 7,
      rules: [{ method: "POST", path: "/v1/firewall/groups", answer_lost: 1, limit: 1 }],
    });
    const created = await up("lost", { name: "lost", rules: [HTTPS] });
    expect((await groupsNamed("lost")).map((g) => String(g.id))).toEqual([created.id]);
    expect(emulator.admin.requests(20).filter((r) => r.fault === "answer_lost_502").length).toBe(1);
    await host.delete(created.urn, created.id, created.properties);
  });

  it("refuses a taken name, naming the group that holds it", async () => {
    const first = await up("taken", { name: "taken", rules: [] });
    const urn = urnOf("SecurityGroup", "taken-again");
    const checked = await host.check(urn, {}, program({ name: "taken", rules: [SSH] }));
    const refused = await fx.failure(host.create(urn, checked.inputs));
    expect(refused.message).toContain(
      `a security group named "taken" already exists (security group id ${first.id})`,
    );
    await host.delete(first.urn, first.id, first.properties);
  });
});
