/** Role inputs and the pure wire mapping (`/v1/account/roles`): the wire carries permission ids. */
import { z } from "zod";
import { DescriptionInputSchema, expected, NameInputSchema } from "../../api/schemas/common";
import type { CreateRoleRequest, Permission, Role } from "../../api/schemas/iam";
import { AdoptIdSchema } from "../adopt";
import { described, sameNormalised, sameText } from "../common";
import type { Complete, FieldTable } from "../kind";
import { normaliseNames } from "./permissions";

/** Before the catalogue resolves them, names are trimmed, sorted and without repeats. */
export const RoleInputsSchema = z.object({
  name: NameInputSchema,
  description: DescriptionInputSchema.optional(),
  permissions: z
    .array(
      z
        .string({ error: expected('a permission name such as "servers:read"') })
        .trim()
        .min(1, { error: 'must not be empty: give a permission name such as "servers:read"' }),
      { error: expected('a list of permission names such as ["servers:read"]') },
    )
    .transform(normaliseNames),
  adoptId: AdoptIdSchema.optional(),
});
export type RoleInputs = z.output<typeof RoleInputsSchema>;

export interface RoleOutputs {
  roleId: number;
  name: string;
  description: string;
  /** Sorted. */
  permissions: string[];
  /** Ascending. */
  permissionIds: number[];
}

function sameNames(a: unknown, b: unknown): boolean {
  return sameNormalised(a, b, (v) => normaliseNames(v.map((n) => String(n).trim().toLowerCase())));
}

/** Every Role property changes in place. */
export const ROLE_FIELDS: FieldTable<RoleInputs> = {
  name: {},
  description: { equals: sameText },
  permissions: { equals: sameNames },
};

export function toApi(
  inputs: RoleInputs,
  permissionIds: readonly number[],
): Complete<CreateRoleRequest> {
  return {
    name: inputs.name,
    // Always sent: an update without it would keep a description the program removed.
    description: inputs.description ?? "",
    permission_ids: [...permissionIds],
  };
}

/**
 * A grant the answer does not name is named from the catalogue, or else by its id (`#17`), so it
 * shows as drift instead of vanishing.
 */
export function fromApi(role: Role, catalogue: readonly Permission[] = []): RoleOutputs {
  const names = new Map<string, number>();
  for (const grant of role.role_permissions) {
    const name =
      grant.permission?.name ??
      catalogue.find((p) => p.id === grant.permission_id)?.name ??
      `#${grant.permission_id}`;
    names.set(name, grant.permission_id);
  }
  return {
    roleId: role.id,
    ...described(role),
    permissions: normaliseNames([...names.keys()]),
    permissionIds: [...new Set(names.values())].sort((a, b) => a - b),
  };
}

/** A grant does not name its permission: the catalogue must be read. */
export function needsCatalogue(role: Role): boolean {
  return role.role_permissions.some((grant) => grant.permission?.name === undefined);
}

export function outputsFromInputs(
  roleId: number,
  inputs: RoleInputs,
  permissionIds: readonly number[],
): RoleOutputs {
  return {
    roleId,
    ...described(inputs),
    permissions: inputs.permissions,
    permissionIds: [...permissionIds],
  };
}
