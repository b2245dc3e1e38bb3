/**
 * The Server resource through the real dynamic-provider host, as the Pulumi engine drives it:
 * every call carries the `__provider` serialized from the built package's Server class, and the
 * host talks to an in-process emulator whose statuses settle in tens of milliseconds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { NotFoundError } from "../../src/api/errors";
import { stackConfigFor, type TestEmulator } from "../support/emulator";
import { expectCleanRefresh } from "../support/provider-assertions";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startFixtureHost,
  startProviderFixture,
  UNKNOWN,
  urnOf,
} from "../support/provider-fixture";

const FAST = { provisioning: 30, starting: 30, stopping: 30, rebooting: 30, deleting: 30 };

let fx: ProviderFixture;
let emulator: TestEmulator;
let host: ProviderHost;
let api: CloudInfraClient;
let provider: string;

beforeAll(async () => {
  fx = await startProviderFixture({ emulator: { lifecycle: { mode: "auto", durations: FAST } } });
  ({ emulator, host, client: api } = fx);
  provider = fx.provider("Server");
});

afterAll(async () => {
  await fx?.close();
});

/** What a program passes: the arguments plus the serialized provider. */
const program = (args: Props) => fx.withProvider("Server", args);
const up = (name: string, args: Props) => fx.up("Server", name, args);

describe("Server through the Pulumi dynamic-provider host", () => {
  it("creates, reads without drift, updates in place, plans replacements and deletes", async () => {
    const { urn, inputs, id, properties } = await up("web", {
      name: "engine-web",
      planId: 1,
      image: "ubuntu-24.04",
    });
    expect(id).toMatch(/^\d+$/);
    expect(properties).toMatchObject({
      name: "engine-web",
      planId: 1,
      status: "running",
      powerState: "running",
      serverId: Number(id),
      __provider: provider,
    });
    expect(properties["ip"]).toEqual((await api.servers.get(id)).ip);

    const read = await host.read(urn, id, properties, inputs);
    expect(read.id).toBe(id);
    expect(read.properties["__provider"]).toBe(provider);
    expect(await host.diff(urn, id, read.properties, inputs)).toMatchObject({
      changes: "none",
      replaces: [],
    });

    let olds = read.properties;
    const apply = async (change: Props) => {
      const news = (await host.check(urn, olds, program({ ...stripProvider(inputs), ...change })))
        .inputs;
      expect(await host.diff(urn, id, olds, news)).toMatchObject({ changes: "some", replaces: [] });
      olds = (await host.update(urn, id, olds, news)).properties;
      return api.servers.get(id);
    };
    expect((await apply({ name: "engine-web-2" })).user_defined_name).toBe("engine-web-2");
    expect((await apply({ name: "engine-web-2", powerState: "stopped" })).status).toBe("stopped");
    expect(olds).toMatchObject({ powerState: "stopped", status: "stopped" });
    expect((await apply({ name: "engine-web-2", powerState: "running" })).status).toBe("running");
    const firewalled = await apply({ name: "engine-web-2", firewallEnabled: true });
    expect(firewalled.firewall_enabled).toBe(true);
    expect(olds["__provider"]).toBe(provider);

    const current = stripProvider(inputs);
    for (const [field, value] of [
      ["planId", 2],
      ["image", "debian-13"],
    ] as const) {
      const news = (
        await host.check(
          urn,
          olds,
          program({ ...current, name: "engine-web-2", firewallEnabled: true, [field]: value }),
        )
      ).inputs;
      expect(await host.diff(urn, id, olds, news)).toMatchObject({
        changes: "some",
        replaces: [field],
      });
    }

    await host.delete(urn, id, olds);
    await expect(api.servers.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refreshes clean right after an up whose tag and group attachment came after the server", async () => {
    // One `pulumi up`: the server first, then what depends on it and changes it on the service.
    const server = await up("tagged", { name: "tagged", planId: 1, image: "ubuntu-24.04" });
    const group = await fx.up("SecurityGroup", "tagged-ssh", { name: "tagged-ssh", rules: [] });
    const tag = await fx.up("Tag", "tagged", {
      name: "tagged",
      color: "#000000",
      serverIds: [server.id],
    });
    const attachment = await fx.up("SecurityGroupAttachment", "tagged-ssh", {
      securityGroupId: group.id,
      serverId: server.id,
    });
    const live = await api.servers.get(server.id);
    expect([live.tags.length, live.security_groups.length]).toEqual([1, 1]);

    // `pulumi refresh` in a new host. The default refresh diff is the provider's Diff with the
    // refreshed outputs as olds and the stored inputs as news; the legacy one
    // (PULUMI_ENABLE_LEGACY_REFRESH_DIFF=true) compares every stored output with the refreshed
    // ones. expectCleanRefresh asserts both: the Read returns exactly the stored outputs and
    // inputs, and the Diff plans nothing.
    const refresher = await fx.startHost();
    await expectCleanRefresh(refresher, server.urn, server, server.inputs);

    for (const made of [attachment, tag, group])
      await host.delete(made.urn, made.id, made.properties);
    await host.delete(server.urn, server.id, server.properties);
  });

  it("survives preview: unknown values never fail check, and an unknown plan is a replacement", async () => {
    const urn = urnOf("Server", "preview");
    const checked = await host.check(
      urn,
      {},
      program({ name: "preview", planId: UNKNOWN, image: "ubuntu-24.04", sshKeyIds: UNKNOWN }),
    );
    expect(checked.failures).toEqual([]);
    expect(checked.inputs).toMatchObject({ planId: UNKNOWN, sshKeyIds: UNKNOWN });

    const olds = {
      name: "preview",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: false,
      powerState: "running",
      serverId: 1,
      status: "running",
      __provider: provider,
    };
    const base = {
      name: "preview",
      planId: 1,
      image: "ubuntu-24.04",
      firewallEnabled: false,
      powerState: "running",
    };
    expect(await host.diff(urn, "1", olds, program({ ...base, planId: UNKNOWN }))).toMatchObject({
      changes: "some",
      replaces: ["planId"],
    });
    expect(await host.diff(urn, "1", olds, program({ ...base, sshKeyIds: UNKNOWN }))).toMatchObject(
      {
        changes: "some",
        replaces: ["sshKeyIds"],
      },
    );
    expect(await host.diff(urn, "1", olds, program({ ...base, name: UNKNOWN }))).toMatchObject({
      changes: "some",
      replaces: [],
    });
  });

  it("shows a rename made elsewhere as exactly that change, and a server deleted elsewhere as gone", async () => {
    const { urn, inputs, id, properties } = await up("drift", {
      name: "engine-drift",
      planId: 1,
      image: "ubuntu-24.04",
    });
    await api.servers.update(id, { user_defined_name: "renamed-by-hand" });

    // Each refresh runs in a new provider host, as the engine starts one per operation.
    const refreshed = await (await fx.startHost()).read(urn, id, properties, inputs);
    expect(stripProvider(refreshed.inputs ?? {})).toEqual({
      ...stripProvider(inputs),
      name: "renamed-by-hand",
    });
    // The next `up` wants to rename it back, in place, and nothing else.
    expect(await host.diff(urn, id, refreshed.properties, inputs)).toMatchObject({
      changes: "some",
      replaces: [],
    });
    expect(
      await host.diff(urn, id, refreshed.properties, { ...inputs, name: "renamed-by-hand" }),
    ).toMatchObject({ changes: "none" });

    await api.servers.manage(id, { action: "delete" });
    await host.delete(urn, id, refreshed.properties);
    const gone = await (await fx.startHost()).read(urn, id, refreshed.properties, inputs);
    expect(gone.id).toBe("");
  });

  it("records a server whose provisioning failed, with its id and provider", async () => {
    emulator.admin.failProvisioning({ next: 1 });
    const urn = urnOf("Server", "broken");
    const checked = await host.check(
      urn,
      {},
      program({ name: "engine-broken", planId: 1, image: "ubuntu-24.04" }),
    );
    const err = await fx.failure(host.create(urn, checked.inputs));
    const made = (await api.servers.list()).find((s) => s.user_defined_name === "engine-broken");
    expect(made?.status).toBe("error");
    expect(err.initFailed?.id).toBe(String(made?.id));
    expect(err.initFailed?.properties).toMatchObject({
      serverId: made?.id,
      status: "error",
      __provider: provider,
    });
    expect(err.initFailed?.reasons.join("\n")).toContain(
      `server ${made?.id} went to status "error"`,
    );

    // The next `up` replaces it, and its delete (with the recorded provider) removes it.
    const recorded = err.initFailed?.properties ?? {};
    expect(await host.diff(urn, String(made?.id), recorded, checked.inputs)).toMatchObject({
      changes: "some",
      replaces: ["status"],
    });
    await host.delete(urn, String(made?.id), recorded);
    await expect(api.servers.get(made?.id ?? 0)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("names the property at fault for bad inputs", async () => {
    const checked = await host.check(
      urnOf("Server", "bad"),
      {},
      program({ name: "bad", planId: "abc", image: "" }),
    );
    expect(checked.failures.map((f) => f.property).sort()).toEqual(["image", "planId"]);
    expect(checked.failures.find((f) => f.property === "planId")?.reason).toContain('"abc"');
  });

  it("never shows an API key in an error or on the host's stderr", async () => {
    const wrongKey = "ci_wrong_key_0123456789abcdef0123456789";
    const denied = await startFixtureHost({ config: stackConfigFor(emulator, wrongKey) });
    try {
      const urn = urnOf("Server", "denied");
      const checked = await denied.check(
        urn,
        {},
        program({ name: "denied", planId: 1, image: "ubuntu-24.04" }),
      );
      const err = await fx.failure(denied.create(urn, checked.inputs));
      expect(err.message).toContain("401");
      await fx.failure(denied.read(urn, "1", checked.inputs));
      await fx.failure(denied.delete(urn, "1", checked.inputs));
      expect(denied.stderr).not.toContain(wrongKey);
      expect(fx.errors.join("\n")).not.toContain(wrongKey);
    } finally {
      await denied.close();
    }
    await fx.failure(host.read(urnOf("Server", "x"), "not-a-number", program({ name: "x" })));
    expect(fx.errors.join("\n")).not.toContain(emulator.apiKey);
    expect(host.stderr).not.toContain(emulator.apiKey);
  });
});

function stripProvider(props: Props): Props {
  const { __provider: _provider, ...rest } = props;
  return rest;
}
