/**
 * The rehearsal the seed file is for: an account "made by hand" (seeded from YAML, with its own
 * key), adopted into a stack with `adoptId` through the real dynamic-provider host, then a
 * refresh in a new host that finds nothing to change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { stackConfigFor } from "../support/emulator";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startFixtureHost,
  startProviderFixture,
  urnOf,
} from "../support/provider-fixture";

const KEY = "handmade-owner-key-0123456789";
const SEED = `
accounts:
  - name: Handmade
    api_key: ${KEY}
    servers:
      web: { plan: VPS S, image: ubuntu-24.04, firewall_enabled: true }
      batch: { plan: VPS XS, image: debian-12, status: stopped }
    tags:
      prod: { color: "#ff0000", servers: [web, batch] }
`;

let fx: ProviderFixture;
let client: CloudInfraClient;
const hosts: ProviderHost[] = [];

beforeAll(async () => {
  fx = await startProviderFixture({ emulator: { lifecycle: { mode: "manual" } } });
  client = new CloudInfraClient({
    endpoint: fx.emulator.endpoint,
    apiKey: KEY,
    caCert: fx.emulator.caCert,
  });
}, 60_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  await client?.close();
  await fx?.close();
});

async function hostOfTheSeededAccount(): Promise<ProviderHost> {
  const host = await startFixtureHost({ config: stackConfigFor(fx.emulator, KEY) });
  hosts.push(host);
  return host;
}

describe("adopting a seeded account", () => {
  it("adopts its servers and tag with adoptId, changes nothing, and refreshes clean", async () => {
    const { accounts } = await fx.emulator.admin.seedAccounts(SEED, "handmade.yaml");
    const seeded = accounts[0];
    if (seeded === undefined) throw new Error("nothing seeded");
    const ids = { web: seeded.servers["web"], batch: seeded.servers["batch"] };
    const before = await client.servers.list();
    const plans = Object.fromEntries(
      (await client.catalogue.listPlans()).map((p) => [p.name, p.id]),
    );

    const programs: [string, string, Props][] = [
      [
        "Server",
        "web",
        {
          name: "web",
          planId: plans["VPS S"],
          image: "ubuntu-24.04",
          firewallEnabled: true,
          adoptId: String(ids.web),
        },
      ],
      [
        "Server",
        "batch",
        {
          name: "batch",
          planId: plans["VPS XS"],
          image: "debian-12",
          powerState: "stopped",
          adoptId: String(ids.batch),
        },
      ],
      [
        "Tag",
        "prod",
        {
          name: "prod",
          color: "#ff0000",
          serverIds: [ids.web, ids.batch],
          adoptId: String(seeded.tags["prod"]),
        },
      ],
    ];

    // `pulumi up`: Check then Create, which adopts.
    const up = await hostOfTheSeededAccount();
    const created = [];
    for (const [kind, name, args] of programs) {
      const urn = urnOf(kind, name);
      const checked = await up.check(urn, {}, fx.withProvider(kind, args));
      expect(checked.failures).toEqual([]);
      created.push({ urn, inputs: checked.inputs, ...(await up.create(urn, checked.inputs)) });
    }
    expect(created.map((c) => c.id)).toEqual([
      String(ids.web),
      String(ids.batch),
      String(seeded.tags["prod"]),
    ]);
    expect(created[1]?.properties).toMatchObject({ status: "stopped" });
    expect(created[2]?.properties).toMatchObject({ serverIds: [ids.web, ids.batch].sort() });
    // Adoption took what was there: nothing created, nothing changed.
    expect(await client.servers.list()).toEqual(before);

    // `pulumi refresh` in a new host: every resource reads back as recorded, no diff.
    const refresh = await hostOfTheSeededAccount();
    for (const { urn, id, properties, inputs } of created) {
      const read = await refresh.read(urn, id, properties, inputs);
      expect(read.id).toBe(id);
      expect(read.properties).toEqual(properties);
      expect(await refresh.diff(urn, id, read.properties, inputs)).toEqual({
        changes: "none",
        replaces: [],
        deleteBeforeReplace: false,
      });
    }
  });
});
