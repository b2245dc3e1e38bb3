import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Permission, Role } from "../../src/api/schemas/iam";
import { didYouMean } from "../../src/lib/names";
import { onHost, resetHost } from "../../src/provider";
import { tableInputs, UNKNOWN } from "../../src/resources/common";
import { fromApi, ROLE_FIELDS, toApi } from "../../src/resources/role/model";
import { resolvePermissions } from "../../src/resources/role/permissions";
import { operations as roleOperations } from "../../src/resources/role/provider";
import {
  configureSessionFor,
  newSessionFor,
  startTestEmulator,
  type TestEmulator,
} from "../support/emulator";

const role = onHost(roleOperations);

const CATALOGUE: Permission[] = [
  { id: 1, name: "servers:read" },
  { id: 2, name: "servers:write" },
  { id: 3, name: "tags:read" },
  { id: 5, name: "firewall:read" },
  { id: 9, name: "iam:read" },
];

describe("permission names", () => {
  it("counts edits: one or two make a typo, three in a short name do not", () => {
    expect(didYouMean("server:read", ["servers:read"])).toBe('; did you mean "servers:read"?');
    expect(didYouMean("servers:raed", ["servers:read"])).toBe('; did you mean "servers:read"?');
    expect(didYouMean("", ["abc"])).toBe("");
    // A swap is two edits: "bb" (one) comes before "ba" (two), nearest first.
    expect(didYouMean("ab", ["ba", "bb"])).toBe('; did you mean "bb" or "ba"?');
  });

  it("suggests the closest valid names for a typo, and none for something unrelated", () => {
    const names = CATALOGUE.map((p) => p.name);
    expect(didYouMean("server:read", names)).toBe('; did you mean "servers:read"?');
    expect(didYouMean("servers:wirte", names)).toBe('; did you mean "servers:write"?');
    expect(didYouMean("billing:everything", names)).toBe("");
  });

  it("resolves names in any case and order to the catalogue's spelling and ids, once each", () => {
    expect(
      resolvePermissions(["Tags:Read", " servers:read", "tags:read", "iam:read"], CATALOGUE),
    ).toEqual({ ok: true, names: ["iam:read", "servers:read", "tags:read"], ids: [1, 3, 9] });
  });

  it("reports every unknown name at its position with suggestions or the valid names", () => {
    const result = resolvePermissions(["servers:read", "server:write", "nope"], CATALOGUE);
    expect(result).toEqual({
      ok: false,
      problems: [
        { index: 1, reason: 'unknown permission "server:write": did you mean "servers:write"?' },
        {
          index: 2,
          reason:
            'unknown permission "nope": valid names are servers:read, servers:write, tags:read, firewall:read, iam:read',
        },
      ],
    });
  });
});

describe("Role mapping", () => {
  const wire: Role = {
    id: 7,
    account_id: 1,
    name: "ops",
    description: null,
    system_role: false,
    role_permissions: [
      { id: 1, role_id: 7, permission_id: 5, permission: { id: 5, name: "firewall:read" } },
      { id: 2, role_id: 7, permission_id: 1, permission: null },
      { id: 3, role_id: 7, permission_id: 77, permission: null },
    ],
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };

  it("names grants from the answer, then the catalogue, and keeps an unknown id visible", () => {
    const outs = fromApi(wire, CATALOGUE);
    expect(outs).toEqual({
      roleId: 7,
      name: "ops",
      description: "",
      permissions: ["#77", "firewall:read", "servers:read"],
      permissionIds: [1, 5, 77],
    });
    expect(tableInputs(outs, ROLE_FIELDS)).toEqual({
      name: "ops",
      permissions: ["#77", "firewall:read", "servers:read"],
    });
  });

  it("always sends the description, so removing it clears it", () => {
    expect(toApi({ name: "r", permissions: [], permissionIds: [] })).toEqual({
      name: "r",
      description: "",
      permission_ids: [],
    });
  });
});

describe("Role diff", () => {
  const olds = {
    roleId: 7,
    name: "ops",
    description: "",
    permissions: ["firewall:read", "servers:read"],
    permissionIds: [1, 5],
    __provider: "shim",
  };

  it("sees no change for another order, another case, or a description left out when empty", async () => {
    const result = await role.diff("7", olds, {
      name: "ops",
      permissions: ["Servers:Read", "firewall:read"],
    });
    expect(result.changes).toBe(false);
  });

  it("changes permissions, name and description in place, never replacing the role", async () => {
    const result = await role.diff("7", olds, {
      name: "ops2",
      description: "d",
      permissions: ["servers:read"],
    });
    expect(result).toMatchObject({ changes: true, replaces: [] });
  });

  it("reports permissions that are not known yet as a change", async () => {
    const result = await role.diff("7", olds, { name: "ops", permissions: UNKNOWN });
    expect(result).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("Role against the emulator", () => {
  let emulator: TestEmulator;

  async function setFaults(rules: unknown[]) {
    await emulator.call("PUT", "/_emulator/faults", { json: { seed: 1, rules } });
  }

  async function injected(): Promise<number[]> {
    const { body } = await emulator.call("GET", "/_emulator/faults");
    return (body as { injected: number[] }).injected;
  }

  async function liveRoles(): Promise<{ id: number; name: string; system_role: boolean }[]> {
    return (await emulator.call("GET", "/v1/account/roles")).body as {
      id: number;
      name: string;
      system_role: boolean;
    }[];
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  beforeEach(async () => {
    await newSessionFor(emulator);
    await emulator.call("DELETE", "/_emulator/faults");
  });

  it("check stores the names sorted, once each, in the catalogue's spelling", async () => {
    const result = await role.check(
      {},
      { name: "r", permissions: ["tags:read", "Servers:Read", "tags:read"], __provider: "shim" },
    );
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({ name: "r", permissions: ["servers:read", "tags:read"] });
  });

  it("check fails an unknown name at its position and suggests the closest", async () => {
    const result = await role.check({}, { name: "r", permissions: ["tags:read", "server:read"] });
    expect(result.failures).toEqual([
      {
        property: "permissions",
        reason: 'permissions[1]: unknown permission "server:read": did you mean "servers:read"?',
      },
    ]);
  });

  it("check passes preview unknowns through without asking the service", async () => {
    await setFaults([{ path: "/v1/account/permissions", status_500: 1 }]);
    const result = await role.check({}, { name: UNKNOWN, permissions: ["servers:read", UNKNOWN] });
    expect(result).toEqual({ inputs: { name: UNKNOWN, permissions: ["servers:read", UNKNOWN] } });
  });

  it("check fails as an operation, not as invalid inputs, when the catalogue cannot be read", async () => {
    configureSessionFor(emulator, "not-a-valid-key");
    const unauthorized = await role.check({}, { name: "r", permissions: ["servers:read"] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(unauthorized?.message).toMatch(
      /^cloudinfra: checking Role "r" failed: the permission names could not be checked: reading the permission catalogue failed \(.*401 unauthorized.*\); nothing was changed$/,
    );
    expect(unauthorized?.message).not.toContain("not-a-valid-key");

    // A service failing longer than the client retries reads the same way, not as a bad name.
    await newSessionFor(emulator);
    await setFaults([{ path: "/v1/account/permissions", status_500: 1 }]);
    await expect(role.check({}, { name: "r", permissions: ["servers:read"] })).rejects.toThrow(
      /could not be checked: reading the permission catalogue failed \(.*500 /,
    );
  });

  it("creates, reads, updates and deletes a role", async () => {
    const { inputs } = await role.check(
      {},
      { name: "crud", description: "ops team", permissions: ["tags:read", "servers:read"] },
    );
    const created = await role.create(inputs ?? {});
    expect(created.outs).toEqual({
      roleId: Number(created.id),
      name: "crud",
      description: "ops team",
      permissions: ["servers:read", "tags:read"],
      permissionIds: [1, 3],
    });
    expect(await role.read(created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
      inputs: { name: "crud", description: "ops team", permissions: ["servers:read", "tags:read"] },
    });
    const updated = await role.update(created.id, created.outs, {
      name: "crud2",
      permissions: ["firewall:read"],
    });
    const again = await role.read(created.id, updated.outs);
    expect(again.props).toEqual(updated.outs);
    expect(again.props).toMatchObject({
      name: "crud2",
      description: "",
      permissions: ["firewall:read"],
    });
    await role.delete(created.id, updated.outs ?? {});
    expect(await role.read(created.id, updated.outs)).toEqual({});
    await expect(role.delete(created.id, updated.outs ?? {})).resolves.toBeUndefined();
  });

  it("shows permissions edited elsewhere as exactly that drift", async () => {
    const created = await role.create({ name: "drift", permissions: ["servers:read"] });
    await emulator.call("POST", `/v1/account/roles/${created.id}/update`, {
      json: { name: "drift", permission_ids: [1, 2] },
    });
    const read = await role.read(created.id, created.outs);
    expect(read.inputs).toEqual({ name: "drift", permissions: ["servers:read", "servers:write"] });
    const diff = await role.diff(created.id, read.props ?? {}, {
      name: "drift",
      permissions: ["servers:read"],
    });
    expect(diff).toMatchObject({ changes: true, replaces: [], stables: ["name", "description"] });
    await role.delete(created.id, created.outs);
  });

  it("refuses a name taken by another role and names it with its id", async () => {
    const first = await role.create({ name: "taken", permissions: [] });
    await expect(role.create({ name: "TAKEN", permissions: ["tags:read"] })).rejects.toThrow(
      `a role named "taken" already exists (role id ${first.id})`,
    );
    await role.delete(first.id, first.outs);
  });

  it("explains that a system role cannot be managed", async () => {
    const system = (await liveRoles()).find((r) => r.system_role);
    if (system === undefined) throw new Error("the emulator has no system role");
    await expect(role.create({ name: system.name, permissions: [] })).rejects.toThrow(
      `is a system role (role id ${system.id})`,
    );
    await expect(
      role.update(String(system.id), {}, { name: system.name, permissions: [] }),
    ).rejects.toThrow("cannot be created, changed or deleted by a Role resource");
    await expect(role.delete(String(system.id), { name: system.name })).rejects.toThrow(
      "is a system role",
    );
    expect((await liveRoles()).some((r) => r.id === system.id)).toBe(true);
  });

  it("makes exactly one role when the create's answer is lost", async () => {
    await setFaults([{ method: "POST", path: "/v1/account/roles", answer_lost: 1, limit: 1 }]);
    const created = await role.create({ name: "lost", permissions: ["tags:read"] });
    expect(await injected()).toEqual([1]);
    const matching = (await liveRoles()).filter((r) => r.name === "lost");
    expect(matching.map((r) => String(r.id))).toEqual([created.id]);
    expect(created.outs).toMatchObject({ permissions: ["tags:read"], permissionIds: [3] });
    await role.delete(created.id, created.outs);
  });

  it("sends the create again when a failure left nothing behind", async () => {
    await setFaults([{ method: "POST", path: "/v1/account/roles", status_502: 1, limit: 1 }]);
    const created = await role.create({ name: "retried", permissions: [] });
    expect(await injected()).toEqual([1]);
    expect((await liveRoles()).filter((r) => r.name === "retried")).toHaveLength(1);
    await role.delete(created.id, created.outs);
  });

  it("drops a role deleted elsewhere on read, and says so on update", async () => {
    const created = await role.create({ name: "gone", permissions: [] });
    await emulator.call("DELETE", `/v1/account/roles/${created.id}`);
    expect(await role.read(created.id, created.outs)).toEqual({});
    await expect(
      role.update(created.id, created.outs, { name: "gone", permissions: ["tags:read"] }),
    ).rejects.toThrow(`role ${created.id} no longer exists`);
  });

  it("reads many roles with one list request", async () => {
    const made = await Promise.all(
      ["m1", "m2", "m3", "m4"].map((name) => role.create({ name, permissions: [] })),
    );
    await newSessionFor(emulator);
    const before = listCount();
    const reads = await Promise.all(made.map((m) => role.read(m.id, m.outs)));
    expect(reads.map((r) => r.id)).toEqual(made.map((m) => m.id));
    expect(listCount() - before).toBe(1);
    for (const m of made) await role.delete(m.id, m.outs);
  });

  /** Answers to `GET /v1/account/roles` so far. */
  function listCount(): number {
    return (
      emulator.admin.counters().find((c) => c.method === "GET" && c.route === "/v1/account/roles")
        ?.total ?? 0
    );
  }
});
