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
/** With the ids of its permissions, which the wire carries: the catalogue's answer. */
export type ResolvedRole = RoleInputs & { permissionIds: number[] };

export interface RoleOutputs {
  roleId: number;
  name: string;
  description: string;
  permissions: string[];
  permissionIds: number[];
}

function sameNames(a: unknown, b: unknown): boolean {
  return sameNormalised(a, b, (v) => normaliseNames(v.map((n) => String(n).trim().toLowerCase())));
}

export const ROLE_FIELDS: FieldTable<RoleInputs> = {
  name: {},
  description: { equals: sameText },
  permissions: { equals: sameNames },
};

export function toApi(role: ResolvedRole): Complete<CreateRoleRequest> {
  return {
    name: role.name,
    // Always sent: an update without it would keep a description the program removed.
    description: role.description ?? "",
    permission_ids: [...role.permissionIds],
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

export function needsCatalogue(role: Role): boolean {
  return role.role_permissions.some((grant) => grant.permission?.name === undefined);
}

export function outputsFromInputs(roleId: number, role: ResolvedRole): RoleOutputs {
  const { permissions, permissionIds } = role;
  return { roleId, ...described(role), permissions, permissionIds: [...permissionIds] };
}
