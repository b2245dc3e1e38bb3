import { describe, expect, it } from "vitest";
import { diffInputs } from "../../src/resources/common";
import {
  ATTACHMENT_FIELDS,
  attachmentId,
  parseAttachmentId,
} from "../../src/resources/security-group-attachment/model";
import { checkOf, failuresOf } from "../support/input-rules";

describe("SecurityGroupAttachment inputs", () => {
  it("stores both ids as numbers", () => {
    expect(
      checkOf("SecurityGroupAttachment", { securityGroupId: "12", serverId: 34 }),
    ).toStrictEqual({
      inputs: { securityGroupId: 12, serverId: 34 },
    });
  });

  it("names each missing or bad id and what an id is", () => {
    expect(failuresOf("SecurityGroupAttachment", {})).toStrictEqual([
      { property: "securityGroupId", reason: "securityGroupId: is required" },
      { property: "serverId", reason: "serverId: is required" },
    ]);
    expect(
      failuresOf("SecurityGroupAttachment", { securityGroupId: 0, serverId: "x" }),
    ).toStrictEqual([
      {
        property: "securityGroupId",
        reason:
          "securityGroupId: expected a security group id (a positive integer, or its decimal text), got 0",
      },
      {
        property: "serverId",
        reason: 'serverId: expected a server id (a positive integer, or its decimal text), got "x"',
      },
    ]);
  });
});

describe("SecurityGroupAttachment diff", () => {
  const diff = (olds: object, news: object) =>
    diffInputs({ ...olds }, { ...news }, ATTACHMENT_FIELDS);

  it("sees no change between a stored number and the same id as text", () => {
    expect(
      diff({ securityGroupId: 12, serverId: 34 }, { securityGroupId: "12", serverId: "34" }),
    ).toStrictEqual({
      changes: false,
      replaces: [],
      stables: ["securityGroupId", "serverId"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces the attachment when either id changes", () => {
    expect(
      diff({ securityGroupId: 12, serverId: 34 }, { securityGroupId: 13, serverId: 34 }),
    ).toStrictEqual({
      changes: true,
      replaces: ["securityGroupId"],
      stables: ["serverId"],
      deleteBeforeReplace: false,
    });
    expect(
      diff({ securityGroupId: 12, serverId: 34 }, { securityGroupId: 12, serverId: 35 }),
    ).toStrictEqual({
      changes: true,
      replaces: ["serverId"],
      stables: ["securityGroupId"],
      deleteBeforeReplace: false,
    });
  });
});

describe("SecurityGroupAttachment id", () => {
  it("is <securityGroupId>/<serverId> and reads back to the same pair", () => {
    expect(attachmentId({ securityGroupId: 12, serverId: 34 })).toBe("12/34");
    expect(parseAttachmentId("12/34")).toStrictEqual({ securityGroupId: 12, serverId: 34 });
    expect(parseAttachmentId(" 12/34\n")).toStrictEqual({ securityGroupId: 12, serverId: 34 });
  });

  it("refuses anything else, zero ids and text around the pair included", () => {
    for (const id of [
      "",
      "12",
      "12/",
      "/34",
      "12/34/5",
      "a12/34",
      "12/34b",
      "12-34",
      "0/34",
      "12/0",
      "1 2/34",
    ]) {
      expect(parseAttachmentId(id), id).toBeUndefined();
    }
    expect(parseAttachmentId("1/1")).toStrictEqual({ securityGroupId: 1, serverId: 1 });
  });
});
