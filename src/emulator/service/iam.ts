/**
 * IAM: the operations the IAM routes, the seeders and the admin API share, with the rules:
 * - a caller can only hand out permissions its own role holds (403): without this, any key with
 *   `iam:write` could mint itself an Administrator key;
 * - the caller's own user and the account owner cannot be deleted or given another role (409);
 * - role names are unique per account (409); system roles cannot be changed or deleted, nor a
 *   role still assigned to a user (409).
 */
import type {
  CreateRoleRequest,
  CreateUserRequest,
  UpdateRoleRequest,
} from "../../api/schemas/iam";
import { permissionById } from "../data";
import {
  conflict,
  type FieldError,
  fieldError,
  forbidden,
  invalidRequest,
} from "../http/http-errors";
import type { AccountState, RolePermissionRecord, RoleRecord, UserRecord } from "../store/state";
import { hashApiKey, newApiKey, permissionsOf } from "./auth";
import { type Author, insertNew } from "./author";
import { nameTaken } from "./validation";

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
  const key =
    request.type !== "api"
      ? undefined
      : apiKey === undefined
        ? newApiKey()
        : { key: apiKey, hash: hashApiKey(apiKey) };
  const user = insertNew(author, author.account.users, "user", () => ({
    name: request.name,
    last_name: "",
    email: "",
    type: request.type,
    role_id: role.id,
    external: false,
    sys: false,
    ...(request.type === "did" ? { did: request.did } : {}),
    ...(key === undefined ? {} : { api_key_hash: key.hash }),
  }));
  return { user, apiKey: key?.key ?? "" };
}

/** A new custom role as POST /v1/account/roles makes it (its permission ids already checked). */
export function insertRole(author: Author, request: CreateRoleRequest): RoleRecord {
  return insertNew(author, author.account.roles, "role", () => ({
    name: request.name,
    description: request.description ?? "",
    system_role: false,
    role_permissions: grants(author, [], request.permission_ids),
    created_by: author.user.id,
  }));
}

/** 400 naming each unknown id as `permission_ids[i]`. */
function checkPermissionIds(ids: readonly number[]): void {
  const errors: FieldError[] = [];
  ids.forEach((id, index) => {
    if (permissionById(id) === undefined) {
      errors.push({ field: `permission_ids[${index}]`, message: `no permission with id ${id}` });
    }
  });
  if (errors.length > 0) {
    const unknown = ids.filter((id) => permissionById(id) === undefined).join(", ");
    throw invalidRequest(`Unknown permission ids: ${unknown}`, errors);
  }
}

/** 403 unless the caller's own role holds every one of these permissions. */
function assertCanGrant(
  author: Pick<Author, "account" | "user">,
  permissionIds: readonly number[],
): void {
  const held = permissionsOf(author.account, author.user);
  const missing = permissionIds
    .map((id) => permissionById(id))
    .filter((p) => p !== undefined && !held.has(p.name))
    .map((p) => p?.name);
  if (missing.length > 0) {
    throw forbidden(
      `You cannot grant permissions your own role lacks: ${[...new Set(missing)].join(", ")}`,
    );
  }
}

function roleForAssignment(author: Pick<Author, "account" | "user">, roleId: number): RoleRecord {
  const role = author.account.roles.get(roleId);
  if (role === undefined) throw fieldError("role_id", `no role with id ${roleId} in this account`);
  assertCanGrant(
    author,
    role.role_permissions.map((link) => link.permission_id),
  );
  return role;
}

/** A user whose removal or demotion would lock the account out of its administration. */
function assertNotProtected(
  author: Pick<Author, "account" | "user">,
  user: UserRecord,
  doing: string,
): void {
  if (user.id === author.user.id) throw conflict(`You cannot ${doing} your own user`);
  if (user.id === author.account.owner_user_id) {
    throw conflict(
      `The account owner (user ${user.id}) cannot be ${doing === "delete" ? "deleted" : "given another role"}`,
    );
  }
}

/** A user as POST /v1/account/users makes it: the role is one the author may hand out. */
export function createUser(
  author: Author,
  request: CreateUserRequest,
): { user: UserRecord; apiKey: string } {
  const role = roleForAssignment(author, request.role_id);
  const did = request.type === "did" ? request.did : undefined;
  const sameDid =
    did === undefined ? undefined : author.account.users.all().find((u) => u.did === did);
  if (sameDid !== undefined) {
    throw conflict(
      `A user with DID ${did} already exists in this account (user ${sameDid.id})`,
      sameDid,
    );
  }
  // Names are unique per account as for tags and roles: a create whose answer was lost can
  // then be told apart from a new one by the 409 of the next attempt (wire-contract.md).
  const taken = nameTaken(author.account.users, request.name);
  if (taken !== undefined) {
    throw conflict(`A user named ${taken.name} already exists (user ${taken.id})`, taken);
  }
  return insertUser(author, request, role);
}

export function deleteUser(author: Pick<Author, "account" | "user">, user: UserRecord): void {
  assertNotProtected(author, user, "delete");
  author.account.users.remove(user.id);
}

/** Gives `user` role `roleId`; `changed` is false when it already had it. */
export function changeUserRole(
  author: Pick<Author, "account" | "user" | "now">,
  user: UserRecord,
  roleId: number,
): { role: RoleRecord; changed: boolean } {
  const role = roleForAssignment(author, roleId);
  if (user.role_id === role.id) return { role, changed: false };
  assertNotProtected(author, user, "change the role of");
  user.role_id = role.id;
  user.updated_at = author.now();
  author.account.users.update(user);
  return { role, changed: true };
}

/** A custom role as POST /v1/account/roles makes it. */
export function createRole(author: Author, request: CreateRoleRequest): RoleRecord {
  checkPermissionIds(request.permission_ids);
  assertCanGrant(author, request.permission_ids);
  const taken = nameTaken(author.account.roles, request.name);
  if (taken !== undefined) {
    throw conflict(`A role named ${request.name} already exists (role ${taken.id})`, taken);
  }
  return insertRole(author, request);
}

/** Replaces a custom role's name, description and permissions (the complete set). */
export function updateRole(author: Author, role: RoleRecord, request: UpdateRoleRequest): void {
  if (role.system_role) throw conflict(`${role.name} is a system role and cannot be changed`);
  checkPermissionIds(request.permission_ids);
  assertCanGrant(author, request.permission_ids);
  const taken = nameTaken(author.account.roles, request.name, role.id);
  if (taken !== undefined) {
    throw conflict(`A role named ${request.name} already exists (role ${taken.id})`, taken);
  }
  role.role_permissions = grants(author, role.role_permissions, request.permission_ids);
  role.name = request.name;
  role.description = request.description ?? "";
  role.updated_at = author.now();
  author.account.roles.update(role);
}

export function deleteRole(account: AccountState, role: RoleRecord): void {
  if (role.system_role) throw conflict(`${role.name} is a system role and cannot be deleted`);
  const holders = account.users
    .all()
    .filter((u) => u.role_id === role.id)
    .map((u) => u.id);
  if (holders.length > 0) {
    throw conflict(
      `Role ${role.name} is still assigned to user(s) ${holders.join(", ")}; give them another role first`,
    );
  }
  account.roles.remove(role.id);
}
