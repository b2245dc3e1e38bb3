import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS } from "../../src/emulator/data/permissions";
import { DataSourceError, getAccount, getPermissions } from "../../src/functions";
import type { TestEmulator } from "../support/emulator";
import { failureOf, startEmulatorForFunctions, stopAll, useEnv } from "./helpers";

let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
});

afterAll(async () => {
  await stopAll(emulator);
});

let roles = 0;

/**
 * A key of a new API user `name` (user names are unique in an account) whose role holds only the
 * named permissions (through the IAM API).
 */
async function keyWith(permissions: string[], name = "limited"): Promise<string> {
  roles += 1;
  const ids = permissions.map((name) => {
    const permission = PERMISSIONS.find((p) => p.name === name);
    if (permission === undefined) throw new Error(`no permission ${name}`);
    return permission.id;
  });
  const role = await emulator.call("POST", "/v1/account/roles", {
    json: { name: `limited-${roles}`, permission_ids: ids },
  });
  if (role.status >= 300) throw new Error(`role: ${JSON.stringify(role.body)}`);
  const user = await emulator.call("POST", "/v1/account/users", {
    json: { name, type: "api", role_id: (role.body as { id: number }).id },
  });
  if (user.status >= 300) throw new Error(`user: ${JSON.stringify(user.body)}`);
  return (user.body as { api_key: string }).api_key;
}

describe("getPermissions", () => {
  it("lists every permission as resource:action, with ids by name", async () => {
    const result = await getPermissions();
    expect(result.names).toEqual(PERMISSIONS.map((p) => p.name));
    expect(result.names).toContain("servers:write");
    expect(result.permissions).toContainEqual({
      id: 2,
      name: "servers:write",
      resource: "servers",
      action: "write",
      description: "Create, rename, start, stop, reboot and delete servers",
    });
    expect(result.ids["iam:read"]).toBe(9);
    expect(Object.keys(result.ids)).toHaveLength(PERMISSIONS.length);
  });

  it("says which call was refused when the key's role lacks iam:read", async () => {
    const limited = await keyWith(["servers:read"], "servers-reader");
    useEnv(emulator, limited);
    try {
      const err = await failureOf(getPermissions());
      expect(err).toBeInstanceOf(DataSourceError);
      expect(err.message).toMatch(
        /^getPermissions: GET \/v1\/account\/permissions failed: 403 forbidden.*the API key's role lacks the permission/,
      );
      expect(err.message).not.toContain(limited);
    } finally {
      useEnv(emulator);
    }
  });
});

describe("getAccount", () => {
  it("returns the key's user, account and memberships, camelCased, without empty fields", async () => {
    const result = await getAccount();
    expect(result.user).toMatchObject({
      name: "Emulator Admin",
      email: "admin@emulator.test",
      type: "human",
      external: false,
      sys: false,
    });
    expect(result.user.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(result.account).toMatchObject({
      name: "Emulator Admin",
      company: "CloudInfra Emulator",
      country: "DE",
      verified: true,
      autoPay: false,
      credits: 0,
    });
    expect(result.account).not.toHaveProperty("taxId");
    expect(result.account).not.toHaveProperty("postalCode");
    expect(result.memberships).toEqual([
      {
        accountId: result.account.id,
        accountName: "CloudInfra Emulator",
        roleId: expect.any(Number),
        roleName: "Administrator",
      },
    ]);
    expect(JSON.stringify(result)).not.toContain(emulator.apiKey);
  });

  it("answers for whichever key is configured", async () => {
    const other = await emulator.admin.createAccount({ name: "Second Owner", company: "Acme" });
    useEnv(emulator, other.api_key);
    try {
      const result = await getAccount();
      expect(result.account.id).toBe(other.account_id);
      expect(result.account.company).toBe("Acme");
      expect(result.user.id).toBe(other.user_id);
      expect(JSON.stringify(result)).not.toContain(other.api_key);
    } finally {
      useEnv(emulator);
    }
  });

  it("works for an API user without any permission", async () => {
    const limited = await keyWith([]);
    useEnv(emulator, limited);
    try {
      const result = await getAccount();
      expect(result.user).toMatchObject({ type: "api", name: "limited" });
      expect(result.user).not.toHaveProperty("email");
      expect(result.memberships[0]?.roleName).toBe(`limited-${roles}`);
    } finally {
      useEnv(emulator);
    }
  });
});
