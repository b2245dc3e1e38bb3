/** `getPermissions`: the permission catalogue (`GET /v1/account/permissions`). */
import type * as pulumi from "@pulumi/pulumi";
import type { Permission } from "../api/schemas/iam";
import { callApi, type DataSourceOptions } from "./call";
import { type DataSourceOutputOptions, definedOnly, outputOf, presentText } from "./common";

/** A permission a role can grant. */
export interface PermissionInfo {
  /** Permission id, as the API's role answers list it (`Role` itself takes `name`s). */
  id: number;
  /** `resource:action`, for example `servers:write`. */
  name: string;
  /** The part of `name` before the colon, for example `servers`. */
  resource: string;
  /** The part of `name` after the colon, for example `write`. */
  action: string;
  /** What the permission allows; absent when the API has no description. */
  description?: string;
}

/** Result of {@link getPermissions}. */
export interface GetPermissionsResult {
  /** Every permission, in the API's order. */
  permissions: PermissionInfo[];
  /** Their names (`servers:read`, ...), in the same order. */
  names: string[];
  /** Permission id by name, for example `ids["servers:read"]`. */
  ids: Record<string, number>;
}

/** Maps a permission of the wire to its Pulumi-facing form. */
export function permissionFromApi(permission: Permission): PermissionInfo {
  const colon = permission.name.indexOf(":");
  return definedOnly({
    id: permission.id,
    name: permission.name,
    resource: colon < 0 ? permission.name : permission.name.slice(0, colon),
    action: colon < 0 ? "" : permission.name.slice(colon + 1),
    description: presentText(permission.description),
  });
}

/**
 * Every permission of the service, named `resource:action`. The API key's role needs
 * `iam:read`.
 *
 * @example
 * // Every read permission, for a read-only role.
 * const { names } = await getPermissions();
 * new Role("readers", { name: "readers", permissions: names.filter((n) => n.endsWith(":read")) });
 */
export async function getPermissions(opts?: DataSourceOptions): Promise<GetPermissionsResult> {
  const list = await callApi("getPermissions", (client, o) => client.iam.listPermissions(o), opts);
  const permissions = list.map(permissionFromApi);
  const ids: Record<string, number> = {};
  for (const permission of permissions) ids[permission.name] ??= permission.id;
  return { permissions, names: permissions.map((p) => p.name), ids };
}

/** {@link getPermissions} as an Output. */
export function getPermissionsOutput(
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetPermissionsResult> {
  return outputOf(undefined, opts, (_, o) => getPermissions(o));
}
