import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { configuredSession, onHost, resetHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { requestDigest } from "../../src/resources/journal";
import { operations as rolesOperations } from "../../src/resources/role/provider";
import { toApi } from "../../src/resources/user/model";
import { operations as userOperations } from "../../src/resources/user/provider";
import { deadPid } from "../support/dead-process";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const roles = onHost(rolesOperations);
const user = onHost(userOperations);

const HOUR = 60 * 60 * 1000;
const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

describe("User check", () => {
  it("stores the type in lower case, the role id as a number and the DID trimmed", async () => {
    const result = await user.check(
      {},
      { name: "ci", type: " DID ", roleId: "12", did: ` ${DID} `, __provider: "shim" },
    );
    expect(result).toEqual({ inputs: { name: "ci", type: "did", roleId: 12, did: DID } });
  });

  it("requires a DID for did users and refuses one for api users", async () => {
    expect((await user.check({}, { name: "a", type: "did", roleId: 1 })).failures).toEqual([
      {
        property: "did",
        reason:
          'did: is required for type "did": give the user\'s DID, for example did:key:z6Mk...',
      },
    ]);
    const api = await user.check({}, { name: "a", type: "api", roleId: 1, did: DID });
    expect(api.failures?.[0]?.property).toBe("did");
    expect(api.failures?.[0]?.reason).toMatch(/^did: must be left out for type "api"/);
  });

  it("names each bad property", async () => {
    const result = await user.check({}, { name: "a", type: "robot", roleId: "admin", did: "x" });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "type", reason: 'type: expected "api" or "did"' },
        {
          property: "roleId",
          reason:
            'roleId: expected a role id (a positive integer, or its decimal text), got "admin"',
        },
        {
          property: "did",
          reason: "did: expected a DID of the form did:<method>:<id>, for example did:key:z6Mk...",
        },
      ]),
    );
  });

  it("passes preview unknowns through and does not judge the DID against an unknown type", async () => {
    const result = await user.check({}, { name: "a", type: UNKNOWN, roleId: UNKNOWN });
    expect(result).toEqual({ inputs: { name: "a", type: UNKNOWN, roleId: UNKNOWN } });
    const did = await user.check({}, { name: "a", type: "api", roleId: 1, did: UNKNOWN });
    expect(did).toEqual({ inputs: { name: "a", type: "api", roleId: 1, did: UNKNOWN } });
  });
});

describe("User diff", () => {
  const olds = { userId: 4, name: "ci", type: "api", roleId: 2, apiKey: "k", __provider: "s" };

  it("changes the role in place", async () => {
    const result = await user.diff("4", olds, { name: "ci", type: "api", roleId: "3" });
    expect(result).toMatchObject({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("sees no change for the same role given as a string", async () => {
    expect((await user.diff("4", olds, { name: "ci", type: "api", roleId: "2" })).changes).toBe(
      false,
    );
  });

  it("replaces the user for a new name or type", async () => {
    const renamed = await user.diff("4", olds, { name: "ci2", type: "api", roleId: 2 });
    expect(renamed).toMatchObject({ changes: true, replaces: ["name"] });
    const retyped = await user.diff("4", olds, { name: "ci", type: "did", roleId: 2, did: DID });
    expect(retyped.replaces).toEqual(["type", "did"]);
  });

  it("deletes a DID user before creating its replacement when the DID stays", async () => {
    const didOlds = { userId: 4, name: "ci", type: "did", roleId: 2, did: DID };
    const renamed = await user.diff("4", didOlds, {
      name: "ci2",
      type: "did",
      roleId: 2,
      did: DID,
    });
    expect(renamed).toMatchObject({ replaces: ["name"], deleteBeforeReplace: true });
    const other = await user.diff("4", didOlds, {
      name: "ci",
      type: "did",
      roleId: 2,
      did: "did:key:other",
    });
    expect(other).toMatchObject({ replaces: ["did"], deleteBeforeReplace: false });
  });
});

describe("User mapping", () => {
  it("sends the DID only for did users", () => {
    expect(toApi({ name: "a", type: "api", roleId: 1 })).toEqual({
      name: "a",
      type: "api",
      role_id: 1,
    });
    expect(toApi({ name: "a", type: "did", roleId: 1, did: DID })).toEqual({
      name: "a",
      type: "did",
      role_id: 1,
      did: DID,
    });
  });
});

describe("User against the emulator", () => {
  let emulator: TestEmulator;
  let readServers: string;
  let readTags: string;

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
    emulator.admin.setClock({ offset_ms: 0 });
    readServers ??= (await roles.create({ name: "servers-ro", permissions: ["servers:read"] })).id;
    readTags ??= (await roles.create({ name: "tags-ro", permissions: ["tags:read"] })).id;
  });

  it("keeps the API key of an api user through read and a role change, and the key works", async () => {
    const { inputs } = await user.check({}, { name: "ci", type: "api", roleId: readServers });
    const created = await user.create(inputs ?? {});
    const key = created.outs["apiKey"];
    expect(typeof key).toBe("string");
    expect(created.outs).toEqual({
      userId: Number(created.id),
      name: "ci",
      type: "api",
      roleId: Number(readServers),
      apiKey: key,
    });
    expect((await emulator.call("GET", "/v1/servers", { key: key as string })).status).toBe(200);
    expect((await emulator.call("GET", "/v1/tags", { key: key as string })).status).toBe(403);

    expect(await user.read(created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
    });

    const updated = await user.update(created.id, created.outs, {
      name: "ci",
      type: "api",
      roleId: Number(readTags),
    });
    expect(updated.outs).toEqual({ ...created.outs, roleId: Number(readTags) });
    expect((await emulator.call("GET", "/v1/tags", { key: key as string })).status).toBe(200);
    expect((await emulator.call("GET", "/v1/servers", { key: key as string })).status).toBe(403);

    await user.delete(created.id, updated.outs ?? {});
    expect((await emulator.call("GET", "/v1/tags", { key: key as string })).status).toBe(401);
    await expect(user.delete(created.id, updated.outs ?? {})).resolves.toBeUndefined();
  });

  it("keeps the stored state on read even when the user was deleted elsewhere", async () => {
    const created = await user.create({ name: "gone", type: "api", roleId: Number(readServers) });
    await emulator.call("DELETE", `/v1/account/users/${created.id}`);
    expect(await user.read(created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
    });
    await expect(
      user.update(created.id, created.outs, {
        name: "gone",
        type: "api",
        roleId: Number(readTags),
      }),
    ).rejects.toThrow(`user ${created.id} no longer exists`);
  });

  it("creates a DID user without a key and refuses a second user with the same DID", async () => {
    const created = await user.create({
      name: "signer",
      type: "did",
      roleId: Number(readServers),
      did: DID,
    });
    expect(created.outs).toEqual({
      userId: Number(created.id),
      name: "signer",
      type: "did",
      roleId: Number(readServers),
      did: DID,
    });
    await expect(
      user.create({ name: "signer2", type: "did", roleId: Number(readServers), did: DID }),
    ).rejects.toThrow(`another user of the account already has the DID ${DID}`);
    await user.delete(created.id, created.outs);
  });

  /** How many users the emulator's account holds (no API call lists users). */
  async function usersInAccount(): Promise<number> {
    const { body } = await emulator.call("GET", "/_emulator/accounts");
    return (body as { users: number }[])[0]?.users ?? 0;
  }

  /** POST /v1/account/users requests the emulator received so far. */
  const posts = () =>
    emulator.admin.counters().find((c) => c.method === "POST" && c.route === "/v1/account/users")
      ?.total ?? 0;

  /** Whether an API key still opens the account (a deleted user's key answers 401). */
  async function keyWorks(key: string): Promise<boolean> {
    return (await emulator.call("GET", "/v1/servers", { key })).status === 200;
  }

  /** A user made by a request outside this provider session (someone else, a dead host). */
  async function userMadeElsewhere(name: string): Promise<{ id: number; key: string }> {
    const { status, body } = await emulator.call("POST", "/v1/account/users", {
      json: { name, type: "api", role_id: Number(readServers) },
    });
    expect(status).toBe(201);
    const made = body as { user_id: number; api_key: string };
    return { id: made.user_id, key: made.api_key };
  }

  /** Faults where the next `count` user creates meet `rule` (a reset, a lost answer). */
  async function userCreatesFailing(rule: Record<string, unknown>, count: number): Promise<void> {
    await emulator.call("PUT", "/_emulator/faults", {
      json: {
        seed: 1,
        rules: [{ method: "POST", path: "/v1/account/users", ...rule, limit: count }],
      },
    });
  }

  it("recovers a lost create answer with one user and a working key, nothing leaked", async () => {
    const before = posts();
    const usersBefore = await usersInAccount();
    await emulator.call("PUT", "/_emulator/faults", {
      json: {
        seed: 1,
        rules: [{ method: "POST", path: "/v1/account/users", answer_lost: 1, limit: 1 }],
      },
    });
    const created = await user.create({ name: "lost-user", type: "api", roleId: readServers });
    // The lost answer made a user; the next send's 409 named it, it was deleted (its key was only
    // in the lost answer) and the third send made the user the state holds.
    expect(posts() - before).toBe(3);
    expect(await usersInAccount()).toBe(usersBefore + 1);
    const key = created.outs["apiKey"] as string;
    expect((await emulator.call("GET", "/v1/servers", { key })).status).toBe(200);
    await user.delete(created.id, created.outs);
    expect(await usersInAccount()).toBe(usersBefore);
  });

  it("refuses a name another user holds, naming it, and deletes nothing", async () => {
    const held = await user.create({ name: "taken", type: "api", roleId: readServers });
    const usersBefore = await usersInAccount();
    const err = await user.create({ name: " Taken", type: "api", roleId: readTags }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain(
      `a user named " Taken" already exists (user id ${held.id}); user names are unique in an account`,
    );
    expect(err?.message).not.toContain(emulator.apiKey);
    expect(await usersInAccount()).toBe(usersBefore);
    await user.delete(held.id, held.outs);
  });

  it("never deletes someone else's user after a send the service never saw: fails naming it", async () => {
    const stranger = await userMadeElsewhere("stranger");
    // An hour later by the service's clock, which also runs an hour ahead of this machine's.
    emulator.admin.setClock({ offset_ms: HOUR });
    const usersBefore = await usersInAccount();
    const before = posts();
    await userCreatesFailing({ reset: 1 }, 1);
    const err = await user.create({ name: "stranger", type: "api", roleId: readServers }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The reset left the first send unresolved; the second's 409 dates the holder an hour
    // before it: someone else's, the name is taken.
    expect(posts() - before).toBe(2);
    expect(err?.message).toContain(
      `a user named "stranger" already exists (user id ${stranger.id}); user names are unique in an account`,
    );
    expect(await keyWorks(stranger.key)).toBe(true);
    expect(await usersInAccount()).toBe(usersBefore);
  });

  it("recovers a lost create answer when the service's clock is an hour behind this machine's", async () => {
    emulator.admin.setClock({ offset_ms: -HOUR });
    const usersBefore = await usersInAccount();
    const before = posts();
    await userCreatesFailing({ answer_lost: 1 }, 1);
    const created = await user.create({ name: "late-clock", type: "api", roleId: readServers });
    // The user the lost answer made is dated an hour before the send by the service's clock,
    // and after it once moved onto this machine's: it is ours, deleted, and made again.
    expect(posts() - before).toBe(3);
    expect(await usersInAccount()).toBe(usersBefore + 1);
    expect(await keyWorks(created.outs["apiKey"] as string)).toBe(true);
    await user.delete(created.id, created.outs);
  });

  /** A create of user `name` that a dead provider host left unresolved, its first send at `sentAt`. */
  function leftUnresolvedByDeadHost(name: string, sentAt: number): void {
    const entry = {
      name: `dead-host-${name}`,
      digest: requestDigest("User", { name }),
      pid: deadPid(),
      process: "a host killed since",
      at: sentAt,
      before: [],
    };
    const dir = configuredSession().journal.dir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${entry.name}.json`), JSON.stringify(entry));
  }

  it("the next run deletes the user an unresolved create of the last run made, and makes it again", async () => {
    leftUnresolvedByDeadHost("journaled", Date.now());
    // What that run's last send made, the answer lost with the host.
    const lost = await userMadeElsewhere("journaled");
    const usersBefore = await usersInAccount();
    const created = await user.create({ name: "journaled", type: "api", roleId: readServers });
    expect(Number(created.id)).not.toBe(lost.id);
    expect(await keyWorks(lost.key)).toBe(false);
    expect(await keyWorks(created.outs["apiKey"] as string)).toBe(true);
    expect(await usersInAccount()).toBe(usersBefore);
    await user.delete(created.id, created.outs);
  });

  it("the next run never deletes a user made before the last run's unresolved create", async () => {
    const stranger = await userMadeElsewhere("older");
    emulator.admin.setClock({ offset_ms: HOUR });
    // The last run's sends came after it, so the service refused them all.
    leftUnresolvedByDeadHost("older", Date.now());
    const usersBefore = await usersInAccount();
    const err = await user.create({ name: "older", type: "api", roleId: readServers }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain(`a user named "older" already exists (user id ${stranger.id})`);
    expect(await keyWorks(stranger.key)).toBe(true);
    expect(await usersInAccount()).toBe(usersBefore);
  });
});
