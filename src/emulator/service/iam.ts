/** IAM: the operations the IAM routes, the seeders and the admin API share. */
import type { CreateRoleRequest, CreateUserRequest } from "../../api/schemas/iam";
import type { RolePermissionRecord, RoleRecord, UserRecord } from "../store/state";
import { hashApiKey, newApiKey } from "./auth";
import type { Author } from "./author";

/**
 * The new grant list: links for permissions the role keeps are kept (their ids are stable), new
 * ones get fresh ids, in the order the caller gave them.
 */
export function grants(
  ctx: Pick<Author, "nextId">,
  existing: readonly RolePermissionRecord[],
  permissionIds: readonly number[],
): RolePermissionRecord[] {
  return permissionIds.map(
    (permissionId) =>
      existing.find((link) => link.permission_id === permissionId) ?? {
        id: ctx.nextId("role_permission"),
        permission_id: permissionId,
      },
  );
}

/**
 * A new user of `role` as POST /v1/account/users makes it. An api user gets `apiKey` when given
 * (a seed file fixes it), else a new one; only its hash is kept. The key is `""` for a did user.
 */
export function insertUser(
  author: Author,
  request: CreateUserRequest,
  role: RoleRecord,
  apiKey?: string,
): { user: UserRecord; apiKey: string } {
  const now = author.now();
  const key =
    request.type !== "api"
      ? undefined
      : apiKey === undefined
        ? newApiKey()
        : { key: apiKey, hash: hashApiKey(apiKey) };
  const user: UserRecord = {
    id: author.nextId("user"),
    name: request.name,
    last_name: "",
    email: "",
    type: request.type,
    role_id: role.id,
    external: false,
    sys: false,
    ...(request.type === "did" ? { did: request.did } : {}),
    ...(key === undefined ? {} : { api_key_hash: key.hash }),
    created_at: now,
    updated_at: now,
  };
  author.account.users.insert(user);
  return { user, apiKey: key?.key ?? "" };
}

/** A new custom role as POST /v1/account/roles makes it (its permission ids already checked). */
export function insertRole(author: Author, request: CreateRoleRequest): RoleRecord {
  const now = author.now();
  const role: RoleRecord = {
    id: author.nextId("role"),
    name: request.name,
    description: request.description ?? "",
    system_role: false,
    role_permissions: [],
    created_by: author.user.id,
    created_at: now,
    updated_at: now,
  };
  role.role_permissions = grants(author, [], request.permission_ids);
  author.account.roles.insert(role);
  return role;
}
