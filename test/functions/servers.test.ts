import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getServer,
  getServerOutput,
  InvalidArgumentError,
  NoMatchError,
} from "../../src/functions";
import type { TestEmulator } from "../support/emulator";
import { failureOf, startEmulatorForFunctions, stopAll } from "./helpers";

let emulator: TestEmulator;
let serverId: number;
let tagId: number;
let groupId: number;

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
  await emulator.call("POST", "/_emulator/seed", { json: { servers: 1 } });
  const { body } = await emulator.call("GET", "/v1/servers");
  serverId = (body as { id: number }[])[0]?.id ?? 0;
  const tag = await emulator.call("POST", "/v1/tags", {
    json: { name: "web", color: "#0EA5E9", server_ids: [serverId] },
  });
  tagId = (tag.body as { id: number }).id;
  await emulator.call("POST", "/v1/firewall/groups", { json: { name: "ssh", rules: [] } });
  const groups = await emulator.call("GET", "/v1/firewall/groups");
  groupId = (groups.body as { data: { id: number }[] }).data[0]?.id ?? 0;
  await emulator.call("POST", `/v1/firewall/groups/${groupId}/servers/${serverId}`);
});

afterAll(async () => {
  await stopAll(emulator);
});

describe("getServer", () => {
  it("reports the live server with its tags and every attached security group", async () => {
    const live = (await emulator.call("GET", `/v1/servers/${serverId}`)).body as {
      user_defined_name: string;
      ip: string;
      created_at: string;
    };
    const result = await getServer({ id: String(serverId) });
    expect(result).toMatchObject({
      id: serverId,
      name: live.user_defined_name,
      status: "running",
      ip: live.ip,
      firewallEnabled: false,
      tags: [{ id: tagId, name: "web", color: "#0EA5E9" }],
      securityGroupIds: [groupId],
      createdAt: live.created_at,
    });
  });

  it("takes an Output id, as server.id is", async () => {
    const result = await new Promise((ok) =>
      getServerOutput({ id: Promise.resolve(serverId) }).apply(ok),
    );
    expect(result).toMatchObject({ id: serverId, securityGroupIds: [groupId] });
  });

  it("names the argument for an id that is not one, and the server for one that does not exist", async () => {
    const bad = await failureOf(getServer({ id: "web-1" }));
    expect(bad).toBeInstanceOf(InvalidArgumentError);
    expect(bad.message).toContain(
      'getServer: invalid argument id: expected a server id (a positive integer, or its decimal text), got "web-1"',
    );
    const missing = await failureOf(getServer({ id: 999_999 }));
    expect(missing).not.toBeInstanceOf(NoMatchError);
    expect(missing.message).toMatch(/^getServer: GET \/v1\/servers\/999999 failed: 404 not_found/);
  });
});
