/**
 * The User resource through the real dynamic-provider host, as the Pulumi engine drives it. The
 * host runs with the client's debug log on: its stderr and its errors must never show the
 * provider's API key or a created user's key. The API has no call to read a user, so refresh
 * keeps the stored state; these tests pin that down.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import type { TestEmulator } from "../support/emulator";
import { closeHostsCheckingLog } from "../support/provider-assertions";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  registeredSecretOutputs,
  startProviderFixture,
  UNKNOWN,
  urnOf,
} from "../support/provider-fixture";

const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

let fx: ProviderFixture;
let emulator: TestEmulator;
let host: ProviderHost;
let api: CloudInfraClient;
let serversRole: number;
let tagsRole: number;
/** Every user key the tests saw, checked at the end against logs and errors. */
const userKeys: string[] = [];

const program = (args: Props) => fx.withProvider("User", args);

async function up(name: string, args: Props) {
  const created = await fx.up("User", name, args);
  const key = created.properties["apiKey"];
  if (typeof key === "string") userKeys.push(key);
  return created;
}

/** What a request with the user's key gets: 200, 401 (no such key) or 403 (not allowed). */
async function statusWithKey(key: string, path: string): Promise<number> {
  return (await emulator.call("GET", path, { key })).status;
}

beforeAll(async () => {
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, host, client: api } = fx);
  serversRole = (await api.iam.createRole({ name: "servers-ro", permission_ids: [1] })).id;
  tagsRole = (await api.iam.createRole({ name: "tags-ro", permission_ids: [3] })).id;
});

afterAll(async () => {
  // The debug log recorded the creation requests, and never a key, there or in an error.
  expect(userKeys.length).toBeGreaterThan(0);
  expect(fx.errors.length).toBeGreaterThan(0);
  await closeHostsCheckingLog(fx, "POST /v1/account/users", [emulator.apiKey, ...userKeys]);
  await fx.close();
});

describe("User through the Pulumi dynamic-provider host", () => {
  it("creates an api user whose key works, keeps the key through refresh and a role change, and deletes it", async () => {
    const created = await up("ci", { name: "ci", type: "API", roleId: String(serversRole) });
    expect(created.inputs).toEqual(program({ name: "ci", type: "api", roleId: serversRole }));
    const key = created.properties["apiKey"];
    expect(typeof key).toBe("string");
    expect(created.properties).toEqual(
      program({
        userId: Number(created.id),
        name: "ci",
        type: "api",
        roleId: serversRole,
        apiKey: key,
      }),
    );
    // The key authenticates, with exactly the role's permissions.
    expect(await statusWithKey(String(key), "/v1/servers")).toBe(200);
    expect(await statusWithKey(String(key), "/v1/tags")).toBe(403);

    // Two refreshes, each in a new host with only the stored state: nothing changes, nothing is lost.
    const first = await (await fx.startHost()).read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(first).toEqual({ id: created.id, properties: created.properties, inputs: undefined });
    const second = await (await fx.startHost()).read(created.urn, created.id, first.properties);
    expect(second.properties["apiKey"]).toBe(key);
    expect(await host.diff(created.urn, created.id, second.properties, created.inputs)).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });

    // Another role: in place, and the key (not an input) is carried into the new outputs.
    const promoted = await host.check(
      created.urn,
      created.inputs,
      program({ name: "ci", type: "api", roleId: tagsRole }),
    );
    expect(await host.diff(created.urn, created.id, second.properties, promoted.inputs)).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await host.update(created.urn, created.id, second.properties, promoted.inputs);
    expect(updated.properties).toEqual({ ...created.properties, roleId: tagsRole });
    expect(await statusWithKey(String(key), "/v1/tags")).toBe(200);
    expect(await statusWithKey(String(key), "/v1/servers")).toBe(403);
    const afterUpdate = await (await fx.startHost()).read(
      created.urn,
      created.id,
      updated.properties,
    );
    expect(afterUpdate.properties["apiKey"]).toBe(key);

    // A new name or type replaces the user, the new one first (it gets a new key).
    const renamed = await host.check(
      created.urn,
      promoted.inputs,
      program({ name: "ci-2", type: "api", roleId: tagsRole }),
    );
    expect(await host.diff(created.urn, created.id, updated.properties, renamed.inputs)).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: false,
    });

    await host.delete(created.urn, created.id, updated.properties);
    expect(await statusWithKey(String(key), "/v1/tags")).toBe(401);
    await host.delete(created.urn, created.id, updated.properties);
  });

  it("replaces a DID user by deleting it first when the DID stays, which the service requires", async () => {
    const created = await up("signer", {
      name: "signer",
      type: "did",
      roleId: serversRole,
      did: DID,
    });
    expect(created.properties).not.toHaveProperty("apiKey");
    const renamed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "signer-2", type: "did", roleId: serversRole, did: DID }),
    );
    expect(await host.diff(created.urn, created.id, created.properties, renamed.inputs)).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    // Creating first would indeed be refused.
    const refused = await fx.failure(host.create(created.urn, renamed.inputs));
    expect(refused.message).toContain(`another user of the account already has the DID ${DID}`);
    await host.delete(created.urn, created.id, created.properties);
    const replacement = await host.create(created.urn, renamed.inputs);
    expect(replacement.properties).toMatchObject({ name: "signer-2", did: DID });
    await host.delete(created.urn, replacement.id, replacement.properties);
  });

  it("plans a preview with unknown values: check passes them through, diff plans the right kind of change", async () => {
    const urn = urnOf("User", "preview");
    expect(await host.check(urn, {}, program({ name: "p", type: "api", roleId: UNKNOWN }))).toEqual(
      {
        inputs: program({ name: "p", type: "api", roleId: UNKNOWN }),
        failures: [],
      },
    );
    const olds = program({ userId: 5, name: "p", type: "api", roleId: 2, apiKey: "stored" });
    expect(
      await host.diff(urn, "5", olds, program({ name: "p", type: "api", roleId: UNKNOWN })),
    ).toMatchObject({ changes: "some", replaces: [] });
    expect(
      await host.diff(urn, "5", olds, program({ name: UNKNOWN, type: "api", roleId: 2 })),
    ).toMatchObject({ changes: "some", replaces: ["name"] });
  });

  it("fails check on the property at fault", async () => {
    const urn = urnOf("User", "bad");
    expect(
      (await host.check(urn, {}, program({ name: "b", type: "did", roleId: 1 }))).failures,
    ).toEqual([{ property: "did", reason: expect.stringContaining('is required for type "did"') }]);
    expect(
      (await host.check(urn, {}, program({ name: "b", type: "did", roleId: 1, did: "did:nope" })))
        .failures,
    ).toEqual([{ property: "did", reason: expect.stringContaining("expected a DID of the form") }]);
  });

  it("keeps the state of a user deleted outside Pulumi on refresh (the API cannot read users)", async () => {
    const created = await up("orphan", { name: "orphan", type: "api", roleId: serversRole });
    await api.iam.deleteUser(created.id);
    const refreshed = await (await fx.startHost()).read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(refreshed).toEqual({
      id: created.id,
      properties: created.properties,
      inputs: undefined,
    });
    // A role change then says what happened and what to do; destroying it succeeds.
    const changed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "orphan", type: "api", roleId: tagsRole }),
    );
    const err = await fx.failure(
      host.update(created.urn, created.id, created.properties, changed.inputs),
    );
    expect(err.message).toContain(`user ${created.id} no longer exists`);
    await host.delete(created.urn, created.id, created.properties);
  });
});

describe("User registration", () => {
  it("asks the engine to keep apiKey secret (additionalSecretOutputs), as a program registers it", () => {
    const seen = registeredSecretOutputs(`
      const { User } = require(entry);
      const resources = [
        new User("ci", { name: "ci", type: "api", roleId: 1 }),
        new User("own", { name: "o", type: "api", roleId: 1 }, { additionalSecretOutputs: ["name"] }),
      ];
    `);
    expect(seen["ci"]).toEqual(["apiKey"]);
    expect(seen["own"]?.sort()).toEqual(["apiKey", "name"]);
  });
});
