import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { onHost, resetHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { fromApi, toApi } from "../../src/resources/tag/model";
import { operations as tagOperations } from "../../src/resources/tag/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const tag = onHost(tagOperations);

describe("Tag check", () => {
  it("stores colours in lower case and server ids as sorted, distinct numbers", async () => {
    const result = await tag.check(
      {},
      { name: "web", color: "#FF00AA", serverIds: ["12", 3, 12, " 7 "], __provider: "shim" },
    );
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({ name: "web", color: "#ff00aa", serverIds: [3, 7, 12] });
  });

  it("names the property and the problem for a bad colour, a bad server id and a missing name", async () => {
    const result = await tag.check({}, { color: "red", serverIds: [1, "web-1", -2] });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "name", reason: "name: is required" },
        { property: "color", reason: "color: expected a colour of the form #RRGGBB, like #ff00aa" },
        {
          property: "serverIds",
          reason:
            'serverIds[1]: expected a server id (a positive integer, or its decimal text), got "web-1"',
        },
        {
          property: "serverIds",
          reason:
            "serverIds[2]: expected a server id (a positive integer, or its decimal text), got -2",
        },
      ]),
    );
  });

  it("refuses data over 1000 characters, as the service would", async () => {
    const result = await tag.check({}, { name: "t", color: "#000000", data: "x".repeat(1001) });
    expect(result.failures).toEqual([
      { property: "data", reason: "data: must be at most 1000 characters" },
    ]);
  });

  it("refuses a name with invisible or bidirectional control characters, as the service would", async () => {
    const result = await tag.check({}, { name: "\u202eevil\u200b", color: "#000000" });
    expect(result.failures).toEqual([
      {
        property: "name",
        reason:
          "name: must not contain invisible or bidirectional control characters, which make different text look the same (found U+202E at character 1)",
      },
    ]);
  });

  it("passes preview unknowns through, wherever they are", async () => {
    const result = await tag.check(
      {},
      { name: UNKNOWN, color: "#ABCDEF", serverIds: [1, UNKNOWN] },
    );
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({ name: UNKNOWN, color: "#abcdef", serverIds: [1, UNKNOWN] });
  });
});

describe("Tag diff", () => {
  const olds = {
    tagId: 5,
    name: "web",
    color: "#ff00aa",
    data: "",
    serverIds: [1, 2],
    __provider: "shim",
  };

  it("sees no change for another letter case, another order, or data left out when empty", async () => {
    const result = await tag.diff("5", olds, { name: "web", color: "#FF00AA", serverIds: [2, 1] });
    expect(result.changes).toBe(false);
  });

  it("changes every field in place and never replaces the tag", async () => {
    const result = await tag.diff("5", olds, {
      name: "api",
      color: "#00ff00",
      data: "team=web",
      serverIds: [],
    });
    expect(result.changes).toBe(true);
    expect(result.replaces).toEqual([]);
    expect(result.stables).toEqual([]);
  });

  it("leaves the membership alone when serverIds is left out", async () => {
    const result = await tag.diff("5", olds, { name: "web", color: "#ff00aa" });
    expect(result.changes).toBe(false);
  });

  it("reports a membership that is not known yet as a change", async () => {
    const result = await tag.diff("5", olds, { name: "web", color: "#ff00aa", serverIds: UNKNOWN });
    expect(result).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("Tag mapping", () => {
  it("sends data as empty text when left out, so removing it clears it on the service", () => {
    expect(toApi({ name: "t", color: "#000000" })).toEqual({
      name: "t",
      color: "#000000",
      data: "",
    });
    expect(toApi({ name: "t", color: "#000000", serverIds: [] })).toMatchObject({ server_ids: [] });
  });

  it("reads colours in lower case and servers as sorted ids, only when membership is managed", () => {
    const wire = {
      id: 9,
      name: "t",
      color: "#AB12CD",
      data: null,
      account_id: 1,
      created_by_user: 1,
      servers: [{ id: 30 }, { id: 4 }],
    } as unknown as Parameters<typeof fromApi>[0];
    expect(fromApi(wire, true)).toEqual({
      tagId: 9,
      name: "t",
      color: "#ab12cd",
      data: "",
      serverIds: [4, 30],
    });
    expect(fromApi(wire, false)).not.toHaveProperty("serverIds");
  });
});

describe("Tag against the emulator", () => {
  let emulator: TestEmulator;
  let servers: number[];

  async function setFaults(rules: unknown[]) {
    await emulator.call("PUT", "/_emulator/faults", { json: { seed: 1, rules } });
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    await emulator.call("POST", "/_emulator/seed", { json: { servers: 3 } });
    const { body } = await emulator.call("GET", "/v1/servers");
    servers = (body as { id: number }[]).map((s) => s.id).sort((a, b) => a - b);
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  beforeEach(async () => {
    await newSessionFor(emulator);
    await emulator.call("DELETE", "/_emulator/faults");
  });

  it("creates, reads, updates and deletes a tag with its servers", async () => {
    const [a, b, c] = servers as [number, number, number];
    const { inputs } = await tag.check({}, { name: "crud", color: "#AA0000", serverIds: [b, a] });
    const created = await tag.create(inputs);
    expect(created.outs).toEqual({
      tagId: Number(created.id),
      name: "crud",
      color: "#aa0000",
      data: "",
      serverIds: [a, b],
    });
    const read = await tag.read(created.id, created.outs);
    expect(read).toEqual({
      id: created.id,
      props: created.outs,
      inputs: { name: "crud", color: "#aa0000", serverIds: [a, b] },
    });
    const updated = await tag.update(created.id, created.outs, {
      name: "crud2",
      color: "#00aa00",
      data: "x",
      serverIds: [c],
    });
    const again = await tag.read(created.id, updated.outs ?? {});
    expect(again.props).toEqual(updated.outs);
    expect(again.props).toMatchObject({
      name: "crud2",
      color: "#00aa00",
      data: "x",
      serverIds: [c],
    });
    // Removing data from the program clears it.
    await tag.update(created.id, updated.outs ?? {}, {
      name: "crud2",
      color: "#00aa00",
      serverIds: [c],
    });
    expect((await tag.read(created.id, { serverIds: [] })).props).toMatchObject({ data: "" });
    await tag.delete(created.id, updated.outs ?? {});
    expect(await tag.read(created.id, updated.outs)).toEqual({});
    // Deleting what is already gone succeeds.
    await expect(tag.delete(created.id, updated.outs ?? {})).resolves.toBeUndefined();
  });

  it("does not touch servers tagged elsewhere when serverIds is left out", async () => {
    const [a] = servers as [number];
    const created = await tag.create({ name: "unmanaged", color: "#000000" });
    await emulator.call("POST", `/v1/tags/${created.id}`, {
      json: { name: "unmanaged", color: "#000000", server_ids: [a] },
    });
    await tag.update(created.id, created.outs, { name: "unmanaged-2", color: "#111111" });
    const { body } = await emulator.call("GET", "/v1/tags");
    const live = (body as { id: number; servers: { id: number }[] }[]).find(
      (t) => String(t.id) === created.id,
    );
    expect(live?.servers.map((s) => s.id)).toEqual([a]);
    const read = await tag.read(created.id, created.outs);
    expect(read.props).not.toHaveProperty("serverIds");
    expect(read.inputs).toEqual({ name: "unmanaged-2", color: "#111111" });
  });

  it("names the existing tag when the name is taken", async () => {
    const first = await tag.create({ name: "taken", color: "#000000" });
    await expect(tag.create({ name: "taken", color: "#ffffff" })).rejects.toThrow(
      new RegExp(
        `creating Tag "taken" failed: a tag named "taken" already exists \\(tag id ${first.id}\\)`,
      ),
    );
  });

  it("adopts the tag its create made when the answer was lost", async () => {
    await setFaults([{ method: "POST", path: "/v1/tags", answer_lost: 1, limit: 1 }]);
    const created = await tag.create({ name: "lost-answer", color: "#123456", serverIds: [] });
    const { body } = await emulator.call("GET", "/v1/tags");
    const named = (body as { id: number; name: string }[]).filter((t) => t.name === "lost-answer");
    expect(named.map((t) => String(t.id))).toEqual([created.id]);
    expect(created.outs).toMatchObject({ name: "lost-answer", color: "#123456", serverIds: [] });
  });

  it("says which tag and what the service answered when an update fails", async () => {
    const created = await tag.create({ name: "bad-update", color: "#000000" });
    await expect(
      tag.update(created.id, created.outs, {
        name: "bad-update",
        color: "#000000",
        serverIds: [999999],
      }),
    ).rejects.toThrow(
      /^cloudinfra: updating Tag "bad-update" failed: POST \/v1\/tags\/\d+ failed: 400 invalid_request.*server_ids/,
    );
  });
});
