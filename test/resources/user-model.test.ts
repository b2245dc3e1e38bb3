import { describe, expect, it } from "vitest";
import { diffInputs, UNKNOWN } from "../../src/resources/common";
import {
  outputsFromInputs,
  replacementNeedsDeleteFirst,
  toApi,
  USER_FIELDS,
  type UserInputs,
} from "../../src/resources/user/model";
import { checkOf, failuresOf } from "../support/input-rules";

const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";
const DID_REQUIRED = {
  property: "did",
  reason: 'did: is required for type "did": give the user\'s DID, for example did:key:z6Mk...',
};
const DID_REFUSED = {
  property: "did",
  reason:
    'did: must be left out for type "api" (API users authenticate with the key the service returns); use type "did" for a DID user',
};

describe("User inputs", () => {
  it("stores the type in lower case, the role id as a number and the DID trimmed", () => {
    expect(checkOf("User", { name: "ci", type: " API ", roleId: "4" })).toStrictEqual({
      inputs: { name: "ci", type: "api", roleId: 4 },
    });
    expect(
      checkOf("User", { name: "ann", type: "Did", roleId: 4, did: ` ${DID}\n` }),
    ).toStrictEqual({
      inputs: { name: "ann", type: "did", roleId: 4, did: DID },
    });
  });

  it("names what a type and a DID may be", () => {
    expect(failuresOf("User", { name: "ci", type: "key", roleId: 4 })).toStrictEqual([
      { property: "type", reason: 'type: expected "api" or "did"' },
    ]);
    expect(failuresOf("User", { name: "ci", type: 7, roleId: 4 })).toStrictEqual([
      { property: "type", reason: 'type: expected "api" or "did"' },
    ]);
    expect(failuresOf("User", { name: "ci", roleId: 4 })).toStrictEqual([
      { property: "type", reason: "type: is required" },
    ]);
    expect(failuresOf("User", { name: "ann", type: "did", roleId: 4, did: 5 })).toStrictEqual([
      { property: "did", reason: "did: expected a DID such as did:key:z6Mk..." },
    ]);
    expect(
      failuresOf("User", { name: "ann", type: "did", roleId: 4, did: "key:z6Mk" }),
    ).toStrictEqual([
      {
        property: "did",
        reason: "did: expected a DID of the form did:<method>:<id>, for example did:key:z6Mk...",
      },
    ]);
  });

  it("requires a DID for a did user and refuses one for an api user", () => {
    expect(failuresOf("User", { name: "ann", type: "did", roleId: 4 })).toStrictEqual([
      DID_REQUIRED,
    ]);
    expect(failuresOf("User", { name: "ci", type: "api", roleId: 4, did: DID })).toStrictEqual([
      DID_REFUSED,
    ]);
  });

  it("leaves the pair rule to the known values, and out while the schema refuses", () => {
    expect(failuresOf("User", { name: "ann", type: UNKNOWN, roleId: 4 })).toStrictEqual([]);
    expect(failuresOf("User", { name: "ci", type: "api", roleId: 4, did: UNKNOWN })).toStrictEqual(
      [],
    );
    expect(failuresOf("User", { name: "ann", type: "did", roleId: 0 })).toStrictEqual([
      {
        property: "roleId",
        reason: "roleId: expected a role id (a positive integer, or its decimal text), got 0",
      },
    ]);
  });
});

describe("User diff", () => {
  const olds = { name: "ann", type: "did", roleId: 4, did: DID, userId: 9 };

  it("changes the role in place, whatever its spelling", () => {
    expect(diffInputs(olds, { ...olds, roleId: "4" }, USER_FIELDS).changes).toBe(false);
    expect(diffInputs(olds, { ...olds, roleId: 5 }, USER_FIELDS)).toStrictEqual({
      changes: true,
      replaces: [],
      stables: ["name", "type", "did"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces the user for a new name, type or DID", () => {
    expect(
      diffInputs(olds, { ...olds, name: "bea", type: "api", did: undefined }, USER_FIELDS),
    ).toStrictEqual({
      changes: true,
      replaces: ["name", "type", "did"],
      stables: ["roleId"],
      deleteBeforeReplace: false,
    });
  });

  it("deletes first only when the replacement keeps the same DID", () => {
    expect(replacementNeedsDeleteFirst(olds, { ...olds, name: "bea" })).toBe(true);
    expect(replacementNeedsDeleteFirst(olds, { ...olds, did: `${DID}x` })).toBe(false);
    expect(replacementNeedsDeleteFirst(olds, { ...olds, type: "api" })).toBe(false);
    expect(replacementNeedsDeleteFirst({ ...olds, type: "api" }, olds)).toBe(false);
    expect(
      replacementNeedsDeleteFirst({ ...olds, did: undefined }, { ...olds, did: undefined }),
    ).toBe(false);
  });
});

describe("User wire mapping", () => {
  const api: UserInputs = { name: "ci", type: "api", roleId: 4 };
  const did: UserInputs = { name: "ann", type: "did", roleId: 4, did: DID };

  it("sends the DID only for a did user", () => {
    expect(toApi(api)).toStrictEqual({ name: "ci", type: "api", role_id: 4 });
    expect(toApi(did)).toStrictEqual({ name: "ann", type: "did", role_id: 4, did: DID });
    expect(toApi({ name: "ann", type: "did", roleId: 4 })).toStrictEqual({
      name: "ann",
      type: "did",
      role_id: 4,
      did: "",
    });
  });

  it("keeps the API key of an api user's creation answer, never an empty one", () => {
    expect(outputsFromInputs(9, api, "key-1")).toStrictEqual({
      userId: 9,
      name: "ci",
      type: "api",
      roleId: 4,
      apiKey: "key-1",
    });
    expect(outputsFromInputs(9, api, "")).toStrictEqual({
      userId: 9,
      name: "ci",
      type: "api",
      roleId: 4,
    });
    expect(outputsFromInputs(9, api, undefined)).toStrictEqual({
      userId: 9,
      name: "ci",
      type: "api",
      roleId: 4,
    });
    expect(outputsFromInputs(9, did, "key-1")).toStrictEqual({
      userId: 9,
      name: "ann",
      type: "did",
      roleId: 4,
      did: DID,
    });
  });
});
