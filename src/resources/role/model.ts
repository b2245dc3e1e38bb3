/**
 * Role inputs as Pulumi sees them and the pure mapping to and from the wire
 * (`/v1/account/roles`). Programs name permissions (`servers:read`); the wire carries their ids.
 */
import { z } from "zod";
import { DescriptionInputSchema, expected, NameInputSchema } from "../../api/schemas/common";
import type { CreateRoleRequest, Permission, Role } from "../../api/schemas/iam";
import { AdoptIdSchema } from "../adopt";
import { described, describedInputs, type FieldRule, type Props, sameText } from "../common";
import { normaliseNames } from "./permissions";

/**
 * What `check` accepts before the names are resolved against the catalogue: the names trimmed,
 * sorted and without repeats, so their order never shows as a change.
 */
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

/** What a Role resource stores as outputs: its inputs, normalised, and the ids the API uses. */
export interface RoleOutputs {
  roleId: number;
  name: string;
  /** `""` when the role has none: the API does not distinguish the two. */
  description: string;
  /** Permission names, sorted. */
  permissions: string[];
  /** The same permissions as ids, ascending. */
  permissionIds: number[];
}

function sameNames(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const norm = (v: unknown[]) => normaliseNames(v.map((n) => String(n).trim().toLowerCase()));
  const before = norm(a);
  const after = norm(b);
  return before.length === after.length && before.every((n, i) => n === after[i]);
}

/**
 * Every Role property changes in place: the API replaces name, description and permissions.
 * `adoptId` is not compared: it only matters at creation.
 */
export const ROLE_FIELDS: Record<Exclude<keyof RoleInputs, "adoptId">, FieldRule> = {
  name: {},
  description: { equals: sameText },
  permissions: { equals: sameNames },
};

/** The body of `POST /v1/account/roles` and `POST /v1/account/roles/:id/update`. */
export function toApi(inputs: RoleInputs, permissionIds: readonly number[]): CreateRoleRequest {
  return {
    name: inputs.name,
    // Always sent: an update without it would keep a description the program removed.
    description: inputs.description ?? "",
    permission_ids: [...permissionIds],
  };
}

/**
 * Outputs from the service's view of a role. A grant whose permission the answer does not spell
 * out is named from the catalogue; one the catalogue does not know either keeps its id in the
 * name (`#17`), so it shows as drift instead of vanishing.
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

/** True when a grant of the role does not name its permission (the catalogue must be read). */
export function needsCatalogue(role: Role): boolean {
  return role.role_permissions.some((grant) => grant.permission?.name === undefined);
}

/** Outputs after a successful create or update, from what was sent. */
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

/** The inputs that would produce the live role, as refresh stores them. */
export function liveInputs(outputs: RoleOutputs): Props {
  return { ...describedInputs(outputs), permissions: outputs.permissions };
}
