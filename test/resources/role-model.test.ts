import { describe, expect, it } from "vitest";
import type { Permission, Role } from "../../src/api/schemas/iam";
import { diffInputs, tableInputs } from "../../src/resources/common";
import { matchesRequest } from "../../src/resources/kind";
import {
  fromApi,
  needsCatalogue,
  outputsFromInputs,
  ROLE_FIELDS,
  type RoleInputs,
  toApi,
} from "../../src/resources/role/model";
import { normaliseNames, resolvePermissions } from "../../src/resources/role/permissions";
import { definition as roleDefinition } from "../../src/resources/role/provider";
import { checkOf, failuresOf } from "../support/input-rules";

/** What a refresh stores as the inputs (the builder's default `liveInputs`). */
const liveInputs = (outputs: object) => tableInputs(outputs, ROLE_FIELDS);

const CATALOGUE: Permission[] = [
  { id: 1, name: "servers:read" },
  { id: 2, name: "servers:write" },
  { id: 3, name: "tags:read" },
  { id: 10, name: "Keys:Read" },
];

function role(grants: Role["role_permissions"], description: string | null = "ops"): Role {
  return {
    id: 5,
    name: "ops",
    description,
    system_role: false,
    role_permissions: grants,
    created_at: "2026-01-01T10:00:00Z",
    updated_at: "2026-01-01T10:00:00Z",
  };
}

const grant = (permissionId: number, name?: string): Role["role_permissions"][number] => ({
  id: 100 + permissionId,
  role_id: 5,
  permission_id: permissionId,
  ...(name === undefined ? {} : { permission: { id: permissionId, name } }),
});

describe("Role inputs", () => {
  it("stores the permission names trimmed, sorted and once each", () => {
    expect(
      checkOf("Role", {
        name: "ops",
        permissions: [" tags:read", "servers:read ", "tags:read", "keys:read"],
      }),
    ).toStrictEqual({
      inputs: { name: "ops", permissions: ["keys:read", "servers:read", "tags:read"] },
    });
  });

  it("names what a permission list and a permission name are", () => {
    expect(failuresOf("Role", { name: "ops", permissions: "servers:read" })).toStrictEqual([
      {
        property: "permissions",
        reason: 'permissions: expected a list of permission names such as ["servers:read"]',
      },
    ]);
    expect(failuresOf("Role", { name: "ops" })).toStrictEqual([
      { property: "permissions", reason: "permissions: is required" },
    ]);
    expect(
      failuresOf("Role", { name: "ops", permissions: ["servers:read", " ", 3] }),
    ).toStrictEqual([
      {
        property: "permissions",
        reason: 'permissions[1]: must not be empty: give a permission name such as "servers:read"',
      },
      {
        property: "permissions",
        reason: 'permissions[2]: expected a permission name such as "servers:read"',
      },
    ]);
  });
});

describe("Role diff", () => {
  const olds = {
    roleId: 5,
    name: "ops",
    description: "",
    permissions: ["servers:read", "tags:read"],
    permissionIds: [1, 3],
  };

  it("sees no change for another order, case or spacing of the same names, or no description", () => {
    expect(
      diffInputs(olds, { name: "ops", permissions: ["Tags:Read ", "servers:read"] }, ROLE_FIELDS),
    ).toStrictEqual({
      changes: false,
      replaces: [],
      stables: ["name", "description", "permissions"],
      deleteBeforeReplace: false,
    });
    expect(
      diffInputs(
        olds,
        { name: "ops", permissions: ["servers:read", "tags:read", "tags:read"] },
        ROLE_FIELDS,
      ).changes,
    ).toBe(false);
  });

  it("sees no change when neither the state nor the program has a description", () => {
    const { description: _, ...withoutDescription } = olds;
    expect(diffInputs(withoutDescription, { ...withoutDescription }, ROLE_FIELDS).changes).toBe(
      false,
    );
  });

  it("sees no change for the same description, and folds case letter by letter", () => {
    const described = { ...olds, description: "ops team" };
    expect(
      diffInputs(described, { ...described, description: "ops team" }, ROLE_FIELDS).changes,
    ).toBe(false);
    // Upper-casing would fold "ß" into "SS" and miss this rename.
    expect(
      diffInputs(
        { ...olds, permissions: ["straße:read"] },
        { ...olds, permissions: ["strasse:read"] },
        ROLE_FIELDS,
      ).stables,
    ).toStrictEqual(["name", "description"]);
  });

  it("changes the description and the permissions in place", () => {
    expect(
      diffInputs(
        olds,
        { name: "ops", description: "x", permissions: ["servers:read"] },
        ROLE_FIELDS,
      ),
    ).toStrictEqual({
      changes: true,
      replaces: [],
      stables: ["name"],
      deleteBeforeReplace: false,
    });
    expect(
      diffInputs(olds, { name: "ops", permissions: ["servers:read", "servers:write"] }, ROLE_FIELDS)
        .stables,
    ).toStrictEqual(["name", "description"]);
    expect(
      diffInputs(
        olds,
        { name: "ops", permissions: ["servers:read", "tags:read", "x:y"] },
        ROLE_FIELDS,
      ).stables,
    ).toStrictEqual(["name", "description"]);
    expect(
      diffInputs({ ...olds, permissions: "servers:read" }, { ...olds }, ROLE_FIELDS).stables,
    ).toStrictEqual(["name", "description"]);
    expect(
      diffInputs({ ...olds }, { ...olds, permissions: "servers:read" }, ROLE_FIELDS).stables,
    ).toStrictEqual(["name", "description"]);
  });
});

describe("Role wire mapping", () => {
  const inputs: RoleInputs = { name: "ops", permissions: ["servers:read", "tags:read"] };

  it("always sends a description and the permission ids", () => {
    expect(toApi({ ...inputs, permissionIds: [1, 3] })).toStrictEqual({
      name: "ops",
      description: "",
      permission_ids: [1, 3],
    });
    expect(toApi({ ...inputs, description: "x", permissionIds: [3] })).toStrictEqual({
      name: "ops",
      description: "x",
      permission_ids: [3],
    });
  });

  it("names each grant from the answer, else from the catalogue, else by its id", () => {
    const live = role([grant(3, "tags:read"), grant(1), grant(17), grant(3, "tags:read")]);
    expect(fromApi(live, CATALOGUE)).toStrictEqual({
      roleId: 5,
      name: "ops",
      description: "ops",
      permissions: ["#17", "servers:read", "tags:read"],
      permissionIds: [1, 3, 17],
    });
    expect(fromApi(role([grant(1)], null))).toStrictEqual({
      roleId: 5,
      name: "ops",
      description: "",
      permissions: ["#1"],
      permissionIds: [1],
    });
  });

  it("reads the catalogue only when a grant does not name its permission", () => {
    expect(needsCatalogue(role([grant(1, "servers:read"), grant(3, "tags:read")]))).toBe(false);
    expect(needsCatalogue(role([grant(1, "servers:read"), grant(3)]))).toBe(true);
    expect(needsCatalogue(role([]))).toBe(false);
  });

  it("records what was sent, and refreshes to the inputs that would make the live role", () => {
    const outputs = outputsFromInputs(5, { ...inputs, permissionIds: [1, 3] });
    expect(outputs).toStrictEqual({
      roleId: 5,
      name: "ops",
      description: "",
      permissions: ["servers:read", "tags:read"],
      permissionIds: [1, 3],
    });
    expect(liveInputs(outputs)).toStrictEqual({
      name: "ops",
      permissions: ["servers:read", "tags:read"],
    });
    expect(liveInputs({ ...outputs, description: "x" })).toStrictEqual({
      name: "ops",
      description: "x",
      permissions: ["servers:read", "tags:read"],
    });
  });

  it("matches a live role only with the same description and permission ids", () => {
    // What a lost answer's lookup takes for this create: derived from the kind's field table.
    const matches = (live: Role, r: typeof inputs, permissionIds: number[]) =>
      matchesRequest(roleDefinition, live, { ...r, permissionIds });
    const live = role([grant(1, "servers:read"), grant(3, "tags:read")], null);
    expect(matches(live, inputs, [1, 3])).toBe(true);
    expect(matches(live, { ...inputs, description: "x" }, [1, 3])).toBe(false);
    // The request's permissions, as check resolved them: names and their ids together.
    const only = { ...inputs, permissions: ["servers:read"] };
    expect(matches(live, only, [1])).toBe(false);
    const more = { ...inputs, permissions: ["servers:read", "tags:read", "users:read"] };
    expect(matches(live, more, [1, 3, 4])).toBe(false);
    const other = { ...inputs, permissions: ["servers:read", "users:read"] };
    expect(matches(live, other, [1, 4])).toBe(false);
  });
});

describe("permission names", () => {
  it("resolves names whatever their case or blanks to the catalogue's spelling and ids", () => {
    expect(
      resolvePermissions([" TAGS:read", "keys:read", "servers:read", "tags:read"], CATALOGUE),
    ).toStrictEqual({
      ok: true,
      names: ["Keys:Read", "servers:read", "tags:read"],
      ids: [1, 3, 10],
    });
  });

  it("reports every unknown name with its position and the nearest names", () => {
    expect(resolvePermissions(["servers:raed", "tags:read", "zzz"], CATALOGUE)).toStrictEqual({
      ok: false,
      problems: [
        {
          index: 0,
          reason:
            'unknown permission "servers:raed": did you mean "servers:read" or "servers:write"?',
        },
        {
          index: 2,
          reason:
            'unknown permission "zzz": valid names are servers:read, servers:write, tags:read, Keys:Read',
        },
      ],
    });
  });

  it("matches a catalogue name the service sends with blanks around it", () => {
    expect(resolvePermissions(["tags:write"], [{ id: 4, name: " Tags:Write\t" }])).toStrictEqual({
      ok: true,
      names: [" Tags:Write\t"],
      ids: [4],
    });
  });

  it("sorts names as text and keeps each once", () => {
    expect(normaliseNames(["b", "a", "B", "a", "10", "9"])).toStrictEqual([
      "10",
      "9",
      "B",
      "a",
      "b",
    ]);
  });
});
