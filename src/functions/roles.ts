/** `getRoles`: the IAM roles the account can grant (`GET /v1/roles`), filtered in the program. */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Role } from "../api/schemas/iam";
import { fromApi, needsCatalogue } from "../resources/role/model";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  type ListedIds,
  listResult,
  matchingName,
  type NameRegexArgs,
  type NameRegexOutputArgs,
  outputOf,
  parseArgs,
  RegexArg,
} from "./common";

/** A role: one of the account's own, or a system role every account has. */
export interface RoleInfo {
  /** Role id; a `User`'s `roleId`, `Role.get` and `adoptId` take it. */
  id: number;
  /** The role's name. */
  name: string;
  /** `""` when the role has none. */
  description: string;
  /** Whether the system defines it (`Administrator`, `Read only`): it cannot be changed. */
  system: boolean;
  /** Its permission names, sorted, as a `Role` resource's `permissions` are. */
  permissions: string[];
  /** The same permissions as ids, ascending. */
  permissionIds: number[];
}

/** Filters of {@link getRoles}; a role must pass every filter given. */
export interface GetRolesArgs extends NameRegexArgs {
  /** `true`: only system roles; `false`: only the account's own roles; absent: both. */
  system?: boolean | undefined;
}

/** {@link GetRolesArgs} whose values may be Outputs. */
export interface GetRolesOutputArgs extends NameRegexOutputArgs {
  /** See {@link GetRolesArgs.system}. */
  system?: pulumi.Input<boolean | undefined>;
}

/** Result of {@link getRoles}. */
export interface GetRolesResult extends ListedIds {
  /** The matching roles, by ascending id. */
  roles: RoleInfo[];
}

export const GetRolesArgsSchema = z.strictObject({
  nameRegex: RegexArg.optional(),
  system: z.boolean({ error: "expected true or false" }).optional(),
});

/**
 * The roles that pass every given filter (all of them without filters), from one list call
 * (and the permission catalogue, only when the service leaves a grant's name out). Never fails
 * because nothing matched: the lists are then empty.
 *
 * @example
 * const readOnly = await cloudinfra.getRoles({ nameRegex: "^Read only$", system: true });
 * new cloudinfra.User("auditor", { name: "auditor", type: "api", roleId: readOnly.ids[0] });
 */
export async function getRoles(
  args?: GetRolesArgs,
  opts?: DataSourceOptions,
): Promise<GetRolesResult> {
  const filter = parseArgs("getRoles", GetRolesArgsSchema, args);
  const listed = await callApi("getRoles", (client, o) => client.iam.listRoles(o), opts);
  const chosen: Role[] = matchingName(listed, filter.nameRegex, (r) => r.name).filter(
    (r) => filter.system === undefined || r.system_role === filter.system,
  );
  const catalogue = chosen.some(needsCatalogue)
    ? await callApi("getRoles", (client, o) => client.iam.listPermissions(o), opts)
    : [];
  const roles = chosen
    .map((role): RoleInfo => {
      const { roleId, name, description, permissions, permissionIds } = fromApi(role, catalogue);
      return {
        id: roleId,
        name,
        description,
        system: role.system_role,
        permissions,
        permissionIds,
      };
    })
    .sort((a, b) => a.id - b.id);
  return listResult("roles", roles);
}

/** {@link getRoles} with arguments that may be Outputs. */
export function getRolesOutput(
  args?: GetRolesOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetRolesResult> {
  return outputOf(args ?? {}, opts, (resolved, o) => getRoles(resolved, o));
}
