/**
 * Autonaming (src/resources/autoname.ts), the rule both flavours call: a named kind without a
 * name gets `<logical name>-<7 random lowercase alphanumerics>`, kept on later runs; the engine's
 * autonaming configuration (native only) proposes, enforces or disables.
 */
import { describe, expect, it } from "vitest";
import { checkWithAutonaming, uniqueName } from "../../src/resources/autoname";
import type { Props } from "../../src/resources/common";

/** A kind's own check, standing in: it echoes what it is given. */
const echo = async (news: Props) => ({ inputs: news });
const TAG = { color: "#123456" };

describe("autonaming", () => {
  it("names a tag without a name <logical name>-<7 lowercase alphanumerics>, marked as chosen", async () => {
    const checked = await checkWithAutonaming("Tag", {}, TAG, { logicalName: "web" }, echo);
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs?.["name"]).toMatch(/^web-[a-z0-9]{7}$/);
    expect(checked.inputs?.["__defaults"]).toEqual(["name"]);
  });

  it("keeps the old inputs' autoname on the next run, and after a refresh dropped the marker", async () => {
    const first = await checkWithAutonaming("Tag", {}, TAG, { logicalName: "web" }, echo);
    const olds = first.inputs ?? {};
    const again = await checkWithAutonaming("Tag", olds, TAG, { logicalName: "web" }, echo);
    expect(again.inputs?.["name"]).toBe(olds["name"]);
    const refreshed = { name: olds["name"], color: "#123456" };
    const after = await checkWithAutonaming("Tag", refreshed, TAG, { logicalName: "web" }, echo);
    expect(after.inputs?.["name"]).toBe(olds["name"]);
  });

  it("uses a given name as it is, without a marker, and drops the hidden logical name", async () => {
    const news = { ...TAG, name: "mine", __logicalName: "web", __defaults: ["name"] };
    const checked = await checkWithAutonaming("Tag", {}, news, { logicalName: "web" }, echo);
    expect(checked.inputs).toEqual({ color: "#123456", name: "mine" });
  });

  it("draws the same name from the same engine seed, another from another seed", () => {
    const seed = new Uint8Array([1, 2, 3]);
    expect(uniqueName("web", seed)).toBe(uniqueName("web", seed));
    expect(uniqueName("web", seed)).toMatch(/^web-[a-z0-9]{7}$/);
    expect(uniqueName("web", new Uint8Array([3, 2, 1]))).not.toBe(uniqueName("web", seed));
  });

  it("uses the engine's proposed name (propose and enforce)", async () => {
    for (const mode of ["propose", "enforce"] as const) {
      const naming = { logicalName: "web", autonaming: { mode, proposedName: "dev-web-x1" } };
      const checked = await checkWithAutonaming("Tag", {}, TAG, naming, echo);
      expect(checked.inputs?.["name"]).toBe("dev-web-x1");
    }
  });

  it("keeps an earlier autoname when the configuration later proposes another", async () => {
    const olds = { ...TAG, name: "web-abc1234", __defaults: ["name"] };
    const naming = {
      logicalName: "web",
      autonaming: { mode: "propose" as const, proposedName: "dev-web-x1" },
    };
    const checked = await checkWithAutonaming("Tag", olds, TAG, naming, echo);
    expect(checked.inputs?.["name"]).toBe("web-abc1234");
  });

  it("refuses a missing name in disable mode, naming the field and the way out", async () => {
    const naming = {
      logicalName: "web",
      autonaming: { mode: "disable" as const, proposedName: "" },
    };
    const checked = await checkWithAutonaming("Tag", {}, TAG, naming, echo);
    expect(checked.failures).toEqual([
      {
        property: "name",
        reason:
          "a name is required: autonaming is disabled by the stack's autonaming configuration (`pulumi:autonaming` mode `disable`); set `name`, or allow autonaming",
      },
    ]);
  });

  it("refuses an automatic name over the API's 255 characters", async () => {
    const logicalName = "x".repeat(250);
    const checked = await checkWithAutonaming("Tag", {}, TAG, { logicalName }, echo);
    expect(checked.failures?.[0]?.reason).toBe(
      `the automatic name "${"x".repeat(40)}"... would be 258 characters, over the limit of 255: set \`name\`, or give the resource a shorter logical name`,
    );
  });

  it("leaves a kind without a name (an attachment) as it is", async () => {
    const news = { securityGroupId: 1, serverId: 2 };
    const checked = await checkWithAutonaming(
      "SecurityGroupAttachment",
      {},
      news,
      { logicalName: "att" },
      echo,
    );
    expect(checked.inputs).toEqual(news);
  });
});
