import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from "../../src/api/errors";
import type { Role } from "../../src/api/schemas/iam";
import type { TestEmulator } from "../support/emulator";
import { type ApiFixture, startApi } from "../support/route-fixtures";

let api: ApiFixture;
let emulator: TestEmulator;
let admin: CloudInfraClient;

let permissionIds: Map<string, number>;

function ids(...names: string[]): number[] {
  return names.map((name) => {
    const id = permissionIds.get(name);
    if (id === undefined) throw new Error(`no permission ${name}`);
    return id;
  });
}

let roleCounter = 0;
async function roleWith(...names: string[]): Promise<Role> {
  roleCounter += 1;
  return admin.iam.createRole({ name: `role-${roleCounter}`, permission_ids: ids(...names) });
}

let userCounter = 0;
async function apiUser(roleId: number): Promise<{ id: number; client: CloudInfraClient }> {
  userCounter += 1;
  // User names are unique in an account, as tags and roles are.
  const created = await admin.iam.createUser({
    name: `robot-${userCounter}`,
    type: "api",
    role_id: roleId,
  });
  return { id: created.user_id, client: api.clientWith(created.api_key) };
}

async function systemRole(name: string): Promise<Role> {
  const role = (await admin.iam.listRoles()).find((r) => r.name === name);
  if (role === undefined) throw new Error(`no system role ${name}`);
  return role;
}

beforeAll(async () => {
  api = await startApi();
  ({ emulator, client: admin } = api);
  permissionIds = new Map((await admin.iam.listPermissions()).map((p) => [p.name, p.id]));
});
afterAll(async () => {
  await api?.close();
});

describe("GET /v1/account/permissions", () => {
  it("lists every resource:action permission with a description", async () => {
    const permissions = await admin.iam.listPermissions();
    expect(permissions.map((p) => p.name)).toContain("servers:write");
    expect(permissions).toHaveLength(16);
    expect(permissions.every((p) => /^[a-z]+:(read|write)$/.test(p.name) && p.description)).toBe(
      true,
    );
  });

  it("answers 401 without a key", async () => {
    const answer = await emulator.call("GET", "/v1/account/permissions", { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: "unauthorized" });
  });
});

describe("API users", () => {
  it("creates a user whose key works once and is limited to its role", async () => {
    const role = await roleWith("tickets:read");
    const created = await admin.iam.createUser({ name: "ci", type: "api", role_id: role.id });
    expect(created.api_key).toMatch(/^cik_/);
    const robot = api.clientWith(created.api_key);
    const me = await robot.account.introspect();
    expect(me.user).toMatchObject({ id: created.user_id, name: "ci", type: "api" });
    expect(me.memberships[0]).toMatchObject({ role_id: role.id, role_name: role.name });
    await expect(robot.support.list()).resolves.toEqual([]);
    await expect(robot.billing.listInvoices()).rejects.toBeInstanceOf(ForbiddenError);
    // The key is never stored: the account's state holds its hash only.
    const state = await emulator.call("GET", "/_emulator/accounts/1");
    expect(JSON.stringify(state.body)).not.toContain(created.api_key);
  });

  it("applies a role change on the key's next request", async () => {
    const user = await apiUser((await roleWith("tickets:read")).id);
    await expect(user.client.billing.listInvoices()).rejects.toBeInstanceOf(ForbiddenError);
    const billing = await roleWith("billing:read");
    await expect(admin.iam.updateUserRole(user.id, { role_id: billing.id })).resolves.toMatchObject(
      { success: true },
    );
    await expect(user.client.billing.listInvoices()).resolves.toBeInstanceOf(Array);
    await expect(user.client.support.list()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("applies a change of the role's permissions on the next request", async () => {
    const role = await roleWith("tickets:read");
    const user = await apiUser(role.id);
    await admin.iam.updateRole(role.id, {
      name: role.name,
      permission_ids: ids("billing:read"),
    });
    await expect(user.client.billing.listInvoices()).resolves.toBeInstanceOf(Array);
    await expect(user.client.support.list()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("stops accepting a deleted user's key (401)", async () => {
    const user = await apiUser((await systemRole("Read only")).id);
    await expect(user.client.account.introspect()).resolves.toMatchObject({
      user: { id: user.id },
    });
    await expect(admin.iam.deleteUser(user.id)).resolves.toMatchObject({ success: true });
    await expect(user.client.account.introspect()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(admin.iam.deleteUser(user.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses a role of another account or no role at all as 400 naming role_id", async () => {
    const other = await emulator.admin.createAccount();
    const theirs = api.clientWith(other.api_key);
    const foreignRole = (await theirs.iam.listRoles())[0];
    const error = await admin.iam
      .createUser({ name: "x", type: "api", role_id: foreignRole?.id ?? 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual([
      { field: "role_id", message: expect.stringContaining("no role") },
    ]);
  });

  it("answers 400 with field errors for a bad body (raw request)", async () => {
    const answer = await emulator.call("POST", "/v1/account/users", {
      json: { name: "", type: "api", role_id: 1, colour: "red" },
    });
    expect(answer.status).toBe(400);
    const errors = (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(errors).toEqual(expect.arrayContaining(["name", "colour"]));
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await emulator.call("POST", "/v1/account/users", {
      body: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ code: "unsupported_media_type" });
  });

  it("will not let a key hand out permissions its own role lacks (403)", async () => {
    const iamOnly = await apiUser((await roleWith("iam:read", "iam:write")).id);
    const adminRole = await systemRole("Administrator");
    await expect(
      iamOnly.client.iam.createUser({ name: "escalate", type: "api", role_id: adminRole.id }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      iamOnly.client.iam.createRole({ name: "sneaky", permission_ids: ids("servers:write") }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const modest = await iamOnly.client.iam.createRole({
      name: "modest",
      permission_ids: ids("iam:read"),
    });
    await expect(
      iamOnly.client.iam.createUser({ name: "ok", type: "api", role_id: modest.id }),
    ).resolves.toMatchObject({ api_key: expect.stringMatching(/^cik_/) });
  });

  it("refuses to delete or demote the caller itself or the account owner (409)", async () => {
    const adminRole = await systemRole("Administrator");
    const second = await apiUser(adminRole.id);
    const me = await second.client.account.introspect();
    await expect(second.client.iam.deleteUser(me.user.id)).rejects.toBeInstanceOf(ConflictError);
    const owner = (await admin.account.introspect()).user.id;
    await expect(second.client.iam.deleteUser(owner)).rejects.toBeInstanceOf(ConflictError);
    const readOnly = await systemRole("Read only");
    await expect(
      second.client.iam.updateUserRole(owner, { role_id: readOnly.id }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(admin.account.introspect()).resolves.toMatchObject({
      memberships: [{ role_name: "Administrator" }],
    });
  });

  it("names the holder of a taken name in its 409, and when it was made by the service's clock", async () => {
    const role = await roleWith("tickets:read");
    const hour = 60 * 60 * 1000;
    // The service's clock an hour ahead: its Date header says so, and the creation time is its.
    emulator.admin.setClock({ offset_ms: hour });
    try {
      const before = Date.now();
      const held = await admin.iam.createUser({ name: "holder", type: "api", role_id: role.id });
      const made = Date.now();
      const again = await emulator.call("POST", "/v1/account/users", {
        json: { name: " Holder", type: "api", role_id: role.id },
      });
      expect(again.status).toBe(409);
      const body = again.body as { existing_id: number; existing_created_at: string };
      expect(body.existing_id).toBe(held.user_id);
      const createdAt = Date.parse(body.existing_created_at);
      expect(createdAt).toBeGreaterThanOrEqual(before + hour);
      expect(createdAt).toBeLessThanOrEqual(made + hour);
      const serviceNow = Date.parse(again.headers["date"] ?? "");
      expect(serviceNow - Date.now()).toBeGreaterThan(hour - 2000);
      // The client moves it back onto this machine's clock.
      const err = (await admin.iam
        .createUser({ name: "holder", type: "api", role_id: role.id })
        .then(
          () => undefined,
          (e: unknown) => e,
        )) as ConflictError;
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.existingId).toBe(held.user_id);
      expect(err.existingCreatedAtHere).toBeGreaterThanOrEqual(before);
      // Late by at most a second (the header is cut to it) and the answer's travel time.
      expect(err.existingCreatedAtHere).toBeLessThanOrEqual(Date.now() + 1000);
    } finally {
      emulator.admin.setClock({ offset_ms: 0 });
    }
  });

  it("answers 404 for another account's user", async () => {
    const other = await emulator.admin.createAccount();
    await expect(admin.iam.deleteUser(other.user_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      admin.iam.updateUserRole(other.user_id, { role_id: (await systemRole("Read only")).id }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("DID users", () => {
  it("creates a DID user without a key; it cannot authenticate over HTTP", async () => {
    const did = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
    const role = await systemRole("Read only");
    const created = await admin.iam.createUser({
      name: "signer",
      type: "did",
      role_id: role.id,
      did,
    });
    expect(created).toMatchObject({ api_key: "" });
    for (const key of [did, "", created.api_key]) {
      const answer = await emulator.call("POST", "/v1/introspect", { key });
      expect(answer.status).toBe(401);
    }
    await expect(
      admin.iam.createUser({ name: "again", type: "did", role_id: role.id, did }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("requires a did for type did and refuses one for type api", async () => {
    const missing = await emulator.call("POST", "/v1/account/users", {
      json: { name: "x", type: "did", role_id: 1 },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: [{ field: "did" }] });
    const extra = await emulator.call("POST", "/v1/account/users", {
      json: { name: "x", type: "api", role_id: 1, did: "did:key:z6Mk" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body).toMatchObject({ errors: [{ field: "did", message: "unknown field" }] });
  });
});

describe("roles", () => {
  it("creates a role with its grants and its creator, and lists it", async () => {
    const role = await admin.iam.createRole({
      name: "Support desk",
      description: "Tickets only",
      permission_ids: ids("tickets:read", "tickets:write"),
    });
    const owner = (await admin.account.introspect()).user;
    expect(role).toMatchObject({
      name: "Support desk",
      description: "Tickets only",
      system_role: false,
      created_by: owner.id,
      created_by_name: owner.name,
      created_by_email: owner.email,
      account_id: 1,
    });
    expect(role.role_permissions.map((g) => [g.role_id, g.permission?.name])).toEqual([
      [role.id, "tickets:read"],
      [role.id, "tickets:write"],
    ]);
    const listed = (await admin.iam.listRoles()).find((r) => r.id === role.id);
    expect(listed).toEqual(role);
    const names = (await admin.iam.listRoles()).filter((r) => r.system_role).map((r) => r.name);
    expect(names).toEqual(["Administrator", "Read only"]);
  });

  it("refuses a taken name, whatever its case (409)", async () => {
    await admin.iam.createRole({ name: "Auditors", permission_ids: [] });
    await expect(
      admin.iam.createRole({ name: " auditors", permission_ids: [] }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      admin.iam.createRole({ name: "administrator", permission_ids: [] }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("names unknown permission ids in a 400", async () => {
    const error = await admin.iam
      .createRole({ name: "bad", permission_ids: ids("servers:read").concat(999) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual([
      { field: "permission_ids[1]", message: "no permission with id 999" },
    ]);
    expect((await admin.iam.listRoles()).some((r) => r.name === "bad")).toBe(false);
  });

  it("replaces name, description and the complete permission set on update", async () => {
    const role = await admin.iam.createRole({
      name: "ops",
      description: "first",
      permission_ids: ids("servers:read", "tags:read"),
    });
    const kept = role.role_permissions.find((g) => g.permission?.name === "tags:read");
    const updated = await admin.iam.updateRole(role.id, {
      name: "operations",
      permission_ids: ids("tags:read", "keys:read"),
    });
    expect(updated).toMatchObject({ id: role.id, name: "operations", description: "" });
    expect(updated.role_permissions.map((g) => g.permission?.name)).toEqual([
      "tags:read",
      "keys:read",
    ]);
    // A grant the role keeps keeps its id.
    expect(updated.role_permissions[0]?.id).toBe(kept?.id);
    await expect(
      admin.iam.updateRole(role.id, { name: "Auditors", permission_ids: [] }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      admin.iam.updateRole(role.id, { name: "Operations", permission_ids: [] }),
    ).resolves.toMatchObject({ name: "Operations", role_permissions: [] });
  });

  it("never changes or deletes a system role (409)", async () => {
    const readOnly = await systemRole("Read only");
    await expect(
      admin.iam.updateRole(readOnly.id, {
        name: "Read only",
        permission_ids: ids("servers:write"),
      }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(admin.iam.deleteRole(readOnly.id)).rejects.toBeInstanceOf(ConflictError);
    expect(await systemRole("Read only")).toEqual(readOnly);
  });

  it("refuses to delete a role that is still assigned, then deletes it once free", async () => {
    const role = await roleWith("tickets:read");
    const user = await apiUser(role.id);
    const error = await admin.iam.deleteRole(role.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toContain(String(user.id));
    await admin.iam.deleteUser(user.id);
    await expect(admin.iam.deleteRole(role.id)).resolves.toMatchObject({ success: true });
    expect((await admin.iam.listRoles()).some((r) => r.id === role.id)).toBe(false);
    await expect(admin.iam.deleteRole(role.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("answers 404 for another account's role and 403 to a read-only key", async () => {
    const other = await emulator.admin.createAccount();
    const theirs = api.clientWith(other.api_key);
    const custom = await theirs.iam.createRole({ name: "theirs", permission_ids: [] });
    await expect(
      admin.iam.updateRole(custom.id, { name: "mine", permission_ids: [] }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(admin.iam.deleteRole(custom.id)).rejects.toBeInstanceOf(NotFoundError);
    const reader = await apiUser((await systemRole("Read only")).id);
    await expect(reader.client.iam.listRoles()).resolves.toBeInstanceOf(Array);
    await expect(
      reader.client.iam.createRole({ name: "nope", permission_ids: [] }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});
