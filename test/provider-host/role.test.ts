/**
 * The Role resource through the real dynamic-provider host, as the Pulumi engine drives it: every
 * call carries the `__provider` serialized from the built package's Role class, the host talks to
 * an in-process emulator, and runs with the client's debug log on so that stderr, which must
 * never show the API key, sees every request.
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
let config: Record<string, string>;
let host: ProviderHost;
let api: CloudInfraClient;

const program = (args: Props) => fx.withProvider("Role", args);
const up = (name: string, args: Props) => fx.up("Role", name, args);

beforeAll(async () => {
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, config, host, client: api } = fx);
});

afterAll(async () => {
  await closeHostsCheckingLog(fx, "/v1/account/roles", [emulator.apiKey]);
  expect(fx.errors.length).toBeGreaterThan(0);
  await fx.close();
});

describe("Role through the Pulumi dynamic-provider host", () => {
  it("configures without secrets support, as the engine expects of a dynamic provider", async () => {
    expect(await host.configure(config)).toEqual({ acceptSecrets: false });
  });

  it("creates, reads without drift, updates every field in place, and deletes", async () => {
    const created = await up("ops", {
      name: "ops",
      description: "operators",
      permissions: ["tags:read", "Servers:Read", "tags:read"],
    });
    // Check stored the names once each, sorted, in the catalogue's spelling.
    expect(created.inputs).toEqual(
      program({
        name: "ops",
        description: "operators",
        permissions: ["servers:read", "tags:read"],
      }),
    );
    expect(created.properties).toEqual(
      program({
        roleId: Number(created.id),
        name: "ops",
        description: "operators",
        permissions: ["servers:read", "tags:read"],
        permissionIds: [1, 3],
      }),
    );

    const refreshed = await expectCleanRefresh(host, created.urn, created, created.inputs);
    // The same program written in another order plans nothing.
    const reordered = await host.check(
      created.urn,
      created.inputs,
      program({
        name: "ops",
        description: "operators",
        permissions: ["tags:read", "servers:read"],
      }),
    );
    expect(
      (await host.diff(created.urn, created.id, refreshed.properties, reordered.inputs)).changes,
    ).toBe("none");

    // Name, description and permissions all change in place: a role is never replaced.
    const changed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "operators", permissions: ["firewall:write", "servers:read"] }),
    );
    expect(await host.diff(created.urn, created.id, refreshed.properties, changed.inputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await host.update(
      created.urn,
      created.id,
      refreshed.properties,
      changed.inputs,
    );
    expect(updated.properties).toEqual(
      program({
        roleId: Number(created.id),
        name: "operators",
        description: "",
        permissions: ["firewall:write", "servers:read"],
        permissionIds: [1, 6],
      }),
    );
    const live = (await api.iam.listRoles()).find((r) => String(r.id) === created.id);
    expect(live?.name).toBe("operators");
    expect(live?.role_permissions.map((p) => p.permission_id).sort()).toEqual([1, 6]);

    await host.delete(created.urn, created.id, updated.properties);
    expect((await api.iam.listRoles()).some((r) => String(r.id) === created.id)).toBe(false);
    // Destroying what is already gone succeeds.
    await host.delete(created.urn, created.id, updated.properties);
  });

  it("fails check on an unknown permission name with the closest valid names", async () => {
    const checked = await host.check(
      urnOf("Role", "typo"),
      {},
      program({ name: "typo", permissions: ["servers:read", "firewal:write"] }),
    );
    expect(checked.failures).toEqual([
      {
        property: "permissions",
        reason:
          'permissions[1]: unknown permission "firewal:write": did you mean "firewall:write"?',
      },
    ]);
  });

  it("plans a preview with unknown values: check passes them through, diff plans an in-place change", async () => {
    const urn = urnOf("Role", "preview");
    expect(await host.check(urn, {}, program({ name: UNKNOWN, permissions: UNKNOWN }))).toEqual({
      inputs: program({ name: UNKNOWN, permissions: UNKNOWN }),
      failures: [],
    });
    const olds = program({
      roleId: 9,
      name: "preview",
      description: "",
      permissions: ["servers:read"],
      permissionIds: [1],
    });
    expect(
      await host.diff(urn, "9", olds, program({ name: "preview", permissions: UNKNOWN })),
    ).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("shows permissions edited outside Pulumi as exactly that drift on refresh", async () => {
    const created = await up("drift", { name: "drift", permissions: ["servers:read"] });
    await api.iam.updateRole(created.id, { name: "drift", permission_ids: [1, 2] });
    const refreshed = await (await fx.startHost()).read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(refreshed.id).toBe(created.id);
    expect(refreshed.properties).toEqual({
      ...created.properties,
      permissions: ["servers:read", "servers:write"],
      permissionIds: [1, 2],
    });
    expect(refreshed.inputs).toEqual({
      ...created.inputs,
      permissions: ["servers:read", "servers:write"],
    });
    // The next `up` puts the program's permissions back, in place.
    expect(await host.diff(created.urn, created.id, refreshed.properties, created.inputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    await host.update(created.urn, created.id, refreshed.properties, created.inputs);
    const live = (await api.iam.listRoles()).find((r) => String(r.id) === created.id);
    expect(live?.role_permissions.map((p) => p.permission_id)).toEqual([1]);
    await host.delete(created.urn, created.id, created.properties);
  });

  it("shows a role deleted outside Pulumi as gone on refresh", async () => {
    const created = await up("doomed", { name: "doomed", permissions: [] });
    await api.iam.deleteRole(created.id);
    const refresher = await fx.startHost();
    expect(
      await refresher.read(created.urn, created.id, created.properties, created.inputs),
    ).toMatchObject({
      id: "",
    });
    await refresher.delete(created.urn, created.id, created.properties);
  });

  it("refuses to manage a system role, with a message that says so", async () => {
    const system = (await api.iam.listRoles()).find((r) => r.system_role);
    if (system === undefined) throw new Error("the emulator has no system role");
    const urn = urnOf("Role", "system");
    const checked = await host.check(urn, {}, program({ name: system.name, permissions: [] }));
    const refused = await fx.failure(host.create(urn, checked.inputs));
    expect(refused.message).toContain(
      `creating Role ${JSON.stringify(system.name)} failed: ${JSON.stringify(system.name)} is a system role (role id ${system.id})`,
    );
    expect(refused.initFailed).toBeUndefined();
  });
});
