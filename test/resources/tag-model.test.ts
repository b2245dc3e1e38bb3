import { describe, expect, it } from "vitest";
import type { Tag } from "../../src/api/schemas/tags";
import { diffInputs, tableInputs } from "../../src/resources/common";
import { wireRequest } from "../../src/resources/kind";
import {
  fromApi,
  normaliseIds,
  outputsFromInputs,
  TAG_FIELDS,
  toApi,
} from "../../src/resources/tag/model";
import { checkOf, failuresOf } from "../support/input-rules";

/** What a refresh stores as the inputs (the builder's default `liveInputs`). */
const liveInputs = (outputs: object) => tableInputs(outputs, TAG_FIELDS);

function tag(overrides: Partial<Tag> = {}): Tag {
  return {
    id: 7,
    name: "prod",
    color: "#FF00AA",
    data: "team: web",
    account_id: 1,
    created_by_user: 1,
    servers: [12, 3].map((id) => ({ id }) as Tag["servers"][number]),
    ...overrides,
  };
}

describe("Tag inputs", () => {
  it("stores the colour in lower case and the server ids sorted, as numbers, once each", () => {
    expect(
      checkOf("Tag", { name: "prod", color: " #FF00aA ", data: "x", serverIds: ["12", 3, 12] }),
    ).toStrictEqual({ inputs: { name: "prod", color: "#ff00aa", data: "x", serverIds: [3, 12] } });
    expect(checkOf("Tag", { name: "prod", color: "#000000" })).toStrictEqual({
      inputs: { name: "prod", color: "#000000" },
    });
  });

  it("says what a colour is, and what the server ids are", () => {
    const colour = (color: unknown) => failuresOf("Tag", { name: "prod", color });
    const form = [
      { property: "color", reason: "color: expected a colour of the form #RRGGBB, like #ff00aa" },
    ];
    expect(colour("#ff00a")).toStrictEqual(form);
    expect(colour("#ff00aa0")).toStrictEqual(form);
    expect(colour("ff00aa")).toStrictEqual(form);
    expect(colour("#gg00aa")).toStrictEqual(form);
    expect(colour(0xff00aa)).toStrictEqual([
      { property: "color", reason: "color: expected a colour of the form #RRGGBB" },
    ]);
    expect(colour(undefined)).toStrictEqual([{ property: "color", reason: "color: is required" }]);
    expect(failuresOf("Tag", { name: "prod", color: "#ff00aa", serverIds: "3" })).toStrictEqual([
      { property: "serverIds", reason: "serverIds: expected a list of server ids" },
    ]);
  });
});

describe("Tag inputs, server ids", () => {
  it("says which server id is bad and what an id is", () => {
    expect(failuresOf("Tag", { name: "prod", color: "#ff00aa", serverIds: [3, 0] })).toStrictEqual([
      {
        property: "serverIds",
        reason:
          "serverIds[1]: expected a server id (a positive integer, or its decimal text), got 0",
      },
    ]);
  });
});

describe("Tag diff", () => {
  const olds = { tagId: 7, name: "prod", color: "#ff00aa", data: "", serverIds: [3, 12] };
  const diff = (news: object) => diffInputs(olds, { ...news }, TAG_FIELDS);

  it("sees no change for another spelling of the same colour, data or membership", () => {
    expect(diff({ name: "prod", color: "#FF00AA", serverIds: [12, 3, 3] })).toStrictEqual({
      changes: false,
      replaces: [],
      stables: ["name", "color", "data", "serverIds"],
      deleteBeforeReplace: false,
    });
    expect(diff({ name: "prod", color: "#ff00aa", serverIds: ["3", "12"] }).changes).toBe(false);
  });

  it("leaves the membership alone when the program does not list servers", () => {
    expect(diff({ name: "prod", color: "#ff00aa" }).changes).toBe(false);
  });

  it("changes colour, data and membership in place", () => {
    expect(diff({ name: "prod", color: "#ff00ab", data: "x", serverIds: [3] })).toStrictEqual({
      changes: true,
      replaces: [],
      stables: ["name"],
      deleteBeforeReplace: false,
    });
    expect(diff({ name: "prod", color: "#ff00aa", serverIds: [3, 13] }).stables).toStrictEqual([
      "name",
      "color",
      "data",
    ]);
    expect(diff({ name: "prod", color: "#ff00aa", serverIds: [3, 12, 13] }).changes).toBe(true);
    expect(diff({ name: "prod", color: 5 }).stables).toStrictEqual(["name", "data", "serverIds"]);
  });

  it("compares the colour exactly when either side is not text", () => {
    expect(diffInputs({ color: 5 }, { color: 5 }, TAG_FIELDS).changes).toBe(false);
    expect(diffInputs({ color: 5 }, { color: "5" }, TAG_FIELDS).changes).toBe(true);
    expect(
      diffInputs({ color: undefined }, { color: "#ff00aa" }, TAG_FIELDS).replaces,
    ).toStrictEqual([]);
    expect(
      diffInputs({ color: undefined }, { color: "#ff00aa" }, TAG_FIELDS).stables,
    ).toStrictEqual(["name", "data", "serverIds"]);
  });

  it("counts a membership the state never listed as a change once the program lists one", () => {
    expect(
      diffInputs({ ...olds, serverIds: undefined }, { ...olds }, TAG_FIELDS).stables,
    ).toStrictEqual(["name", "color", "data"]);
    expect(
      diffInputs({ ...olds }, { ...olds, serverIds: "3,12" }, TAG_FIELDS).stables,
    ).toStrictEqual(["name", "color", "data"]);
  });
});

describe("Tag wire mapping", () => {
  it("always sends data, and the servers only when the program manages them", () => {
    expect(wireRequest(toApi({ name: "prod", color: "#ff00aa" }))).toStrictEqual({
      name: "prod",
      color: "#ff00aa",
      data: "",
    });
    expect(
      wireRequest(toApi({ name: "prod", color: "#ff00aa", data: "x", serverIds: [3] })),
    ).toStrictEqual({
      name: "prod",
      color: "#ff00aa",
      data: "x",
      server_ids: [3],
    });
  });

  it("reads the colour in lower case, no data as empty, and the servers sorted when managed", () => {
    expect(fromApi(tag(), true)).toStrictEqual({
      tagId: 7,
      name: "prod",
      color: "#ff00aa",
      data: "team: web",
      serverIds: [3, 12],
    });
    expect(fromApi(tag({ data: null }), false)).toStrictEqual({
      tagId: 7,
      name: "prod",
      color: "#ff00aa",
      data: "",
    });
  });

  it("records what was sent after a create or update", () => {
    expect(outputsFromInputs(7, { name: "prod", color: "#ff00aa" })).toStrictEqual({
      tagId: 7,
      name: "prod",
      color: "#ff00aa",
      data: "",
    });
    expect(
      outputsFromInputs(7, { name: "prod", color: "#ff00aa", data: "x", serverIds: [3] }),
    ).toStrictEqual({ tagId: 7, name: "prod", color: "#ff00aa", data: "x", serverIds: [3] });
  });

  it("refreshes to the inputs that would make the live tag, leaving out empty data", () => {
    expect(liveInputs({ tagId: 7, name: "prod", color: "#ff00aa", data: "" })).toStrictEqual({
      name: "prod",
      color: "#ff00aa",
    });
    expect(
      liveInputs({ tagId: 7, name: "prod", color: "#ff00aa", data: "x", serverIds: [3] }),
    ).toStrictEqual({ name: "prod", color: "#ff00aa", data: "x", serverIds: [3] });
  });

  it("normalises a membership list to ascending ids without repeats", () => {
    expect(normaliseIds([12, 3, 12, 100, 20])).toStrictEqual([3, 12, 20, 100]);
  });
});
