import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { onHost, resetHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { parseAttachmentId } from "../../src/resources/security-group-attachment/model";
import { operations as attachmentOperations } from "../../src/resources/security-group-attachment/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const attachment = onHost(attachmentOperations);

describe("SecurityGroupAttachment check and diff", () => {
  it("stores both ids as numbers", async () => {
    const result = await attachment.check(
      {},
      { securityGroupId: "12", serverId: 34, __provider: "shim" },
    );
    expect(result).toEqual({ inputs: { securityGroupId: 12, serverId: 34 } });
  });

  it("names a bad id", async () => {
    const result = await attachment.check({}, { securityGroupId: "web", serverId: 0 });
    expect(result.failures).toEqual([
      {
        property: "securityGroupId",
        reason:
          'securityGroupId: expected a security group id (a positive integer, or its decimal text), got "web"',
      },
      {
        property: "serverId",
        reason: "serverId: expected a server id (a positive integer, or its decimal text), got 0",
      },
    ]);
  });

  it("replaces on any change and sees none for the same id as a string", async () => {
    const olds = { securityGroupId: 12, serverId: 34, __provider: "shim" };
    expect(
      await attachment.diff("12/34", olds, { securityGroupId: "12", serverId: "34" }),
    ).toMatchObject({ changes: false });
    expect(
      await attachment.diff("12/34", olds, { securityGroupId: 12, serverId: 35 }),
    ).toMatchObject({
      changes: true,
      replaces: ["serverId"],
    });
    expect(
      await attachment.diff("12/34", olds, { securityGroupId: UNKNOWN, serverId: 34 }),
    ).toMatchObject({ changes: true, replaces: ["securityGroupId"] });
  });

  it("reads the pair from its id", () => {
    expect(parseAttachmentId("12/34")).toEqual({ securityGroupId: 12, serverId: 34 });
    expect(parseAttachmentId("12")).toBeUndefined();
    expect(parseAttachmentId("0/3")).toBeUndefined();
  });
});

describe("SecurityGroupAttachment against the emulator", () => {
  let emulator: TestEmulator;
  let server: number;
  let groupId: number;

  async function attachedServers(): Promise<number[]> {
    const { body } = await emulator.call("GET", `/v1/firewall/groups/${groupId}`);
    return (body as { servers: { id: number }[] }).servers.map((s) => s.id);
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    await emulator.call("POST", "/_emulator/seed", { json: { servers: 1 } });
    const { body } = await emulator.call("GET", "/v1/servers");
    server = (body as { id: number }[])[0]?.id ?? 0;
    await emulator.call("POST", "/v1/firewall/groups", { json: { name: "web", rules: [] } });
    const groups = await emulator.call("GET", "/v1/firewall/groups");
    groupId = (groups.body as { data: { id: number }[] }).data[0]?.id ?? 0;
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  beforeEach(async () => {
    await newSessionFor(emulator);
  });

  it("attaches, reads through the group, detaches, and detaching again succeeds", async () => {
    const created = await attachment.create({ securityGroupId: groupId, serverId: server });
    expect(created).toEqual({
      id: `${groupId}/${server}`,
      outs: { securityGroupId: groupId, serverId: server },
    });
    expect(await attachedServers()).toEqual([server]);
    expect(await attachment.read(created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
      inputs: created.outs,
    });
    await attachment.delete(created.id, created.outs);
    expect(await attachedServers()).toEqual([]);
    await expect(attachment.delete(created.id, created.outs)).resolves.toBeUndefined();
  });

  it("reads a pair detached elsewhere as gone, and attaching again works", async () => {
    const created = await attachment.create({ securityGroupId: groupId, serverId: server });
    await emulator.call("DELETE", `/v1/firewall/groups/${groupId}/servers/${server}`);
    expect(await attachment.read(created.id, created.outs)).toEqual({});
    await attachment.create({ securityGroupId: groupId, serverId: server });
    expect(await attachedServers()).toEqual([server]);
    await attachment.delete(created.id, created.outs);
  });

  it("reads as gone and deletes quietly when the group no longer exists", async () => {
    expect(await attachment.read(`999/${server}`, {})).toEqual({});
    await expect(attachment.delete(`999/${server}`, {})).resolves.toBeUndefined();
  });

  it("says which side is missing when attaching fails", async () => {
    await expect(attachment.create({ securityGroupId: 999, serverId: server })).rejects.toThrow(
      `creating SecurityGroupAttachment "999/${server}" failed: security group 999 does not exist`,
    );
    await expect(attachment.create({ securityGroupId: groupId, serverId: 999 })).rejects.toThrow(
      "server 999 does not exist",
    );
  });
});
