/**
 * Identity and access management: the permission catalogue, API and DID users, and roles.
 *
 * Rules beyond the schemas (docs/wire-contract.md, IAM):
 * - A caller can only hand out permissions its own role holds: creating or changing a role, or
 *   assigning a role to a user, that would grant more is 403 `forbidden`. Without this, any key
 *   with `iam:write` could mint itself an Administrator key.
 * - The caller's own user and the account owner cannot be deleted or have their role changed
 *   (409): either would let an account lock itself out of its own administration.
 * - Role names are unique per account, compared without case and surrounding blanks (409).
 * - System roles cannot be changed or deleted, and a role still assigned to a user cannot be
 *   deleted (409).
 */
import {
  type CreateRoleRequest,
  CreateRoleRequestSchema,
  type CreateUserRequest,
  CreateUserRequestSchema,
  UpdateRoleRequestSchema,
  UpdateUserRoleRequestSchema,
} from "../../api/schemas/iam";
import { hashApiKey, newApiKey, permissionsOf } from "../auth";
import { PERMISSIONS, permissionById } from "../data";
import {
  conflict,
  type FieldError,
  fieldError,
  findOr404,
  forbidden,
  invalidRequest,
} from "../http-errors";
import { type Author, defineRoute, type RouteContext } from "../router";
import type { AccountState, RolePermissionRecord, RoleRecord, UserRecord } from "../state";
import { nameTaken } from "./validation";

/** A role as the wire shows it (spec: Role), with each grant's permission spelled out. */
export function renderRole(account: AccountState, role: RoleRecord) {
  const creator = account.users.get(role.created_by);
  return {
    id: role.id,
    account_id: account.profile.id,
    name: role.name,
    description: role.description,
    system_role: role.system_role,
    role_permissions: role.role_permissions.map((link) => ({
      id: link.id,
      role_id: role.id,
      permission_id: link.permission_id,
      permission: permissionById(link.permission_id) ?? null,
    })),
    created_by: role.created_by,
    // The creator may have been deleted since; the id stays, the name and e-mail are gone.
    created_by_name:
      creator === undefined ? null : [creator.name, creator.last_name].filter(Boolean).join(" "),
    created_by_email: creator === undefined || creator.email === "" ? null : creator.email,
    created_at: role.created_at,
    updated_at: role.updated_at,
  };
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
function assertCanGrant(ctx: RouteContext<unknown>, permissionIds: readonly number[]): void {
  const held = permissionsOf(ctx.account, ctx.user);
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

function roleForAssignment(ctx: RouteContext<unknown>, roleId: number): RoleRecord {
  const role = ctx.account.roles.get(roleId);
  if (role === undefined) throw fieldError("role_id", `no role with id ${roleId} in this account`);
  assertCanGrant(
    ctx,
    role.role_permissions.map((link) => link.permission_id),
  );
  return role;
}

/** A user whose removal or demotion would lock the account out of its administration. */
function assertNotProtected(ctx: RouteContext<unknown>, user: UserRecord, doing: string): void {
  if (user.id === ctx.user.id) throw conflict(`You cannot ${doing} your own user`);
  if (user.id === ctx.account.owner_user_id) {
    throw conflict(
      `The account owner (user ${user.id}) cannot be ${doing === "delete" ? "deleted" : "given another role"}`,
    );
  }
}

/**
 * The new grant list: links for permissions the role keeps are kept (their ids are stable), new
 * ones get fresh ids, in the order the caller gave them.
 */
function grants(
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

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/account/permissions",
    handler: (ctx) => ctx.json(PERMISSIONS.map((p) => ({ ...p }))),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/users",
    body: CreateUserRequestSchema,
    handler(ctx) {
      const body = ctx.body;
      const role = roleForAssignment(ctx, body.role_id);
      const did = body.type === "did" ? body.did : undefined;
      const sameDid =
        did === undefined ? undefined : ctx.account.users.all().find((u) => u.did === did);
      if (sameDid !== undefined) {
        throw conflict(
          `A user with DID ${did} already exists in this account (user ${sameDid.id})`,
          sameDid.id,
        );
      }
      // Names are unique per account as for tags and roles: a create whose answer was lost can
      // then be told apart from a new one by the 409 of the next attempt (wire-contract.md).
      const taken = nameTaken(ctx.account.users, body.name);
      if (taken !== undefined) {
        throw conflict(`A user named ${taken.name} already exists (user ${taken.id})`, taken.id);
      }
      const { user, apiKey } = insertUser(ctx, body, role);
      // The key leaves the service only here; just its hash is kept.
      return ctx.json({ user_id: user.id, api_key: apiKey }, 201);
    },
  }),

  defineRoute({
    method: "DELETE",
    path: "/v1/account/users/:id",
    handler(ctx) {
      const user = findOr404(ctx.account.users, ctx.intParam("id"), "User");
      assertNotProtected(ctx, user, "delete");
      ctx.account.users.remove(user.id);
      return ctx.generic(`User ${user.id} deleted; its API key no longer works`);
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/users/:id/update",
    body: UpdateUserRoleRequestSchema,
    handler(ctx) {
      const user = findOr404(ctx.account.users, ctx.intParam("id"), "User");
      const role = roleForAssignment(ctx, ctx.body.role_id);
      if (user.role_id === role.id)
        return ctx.generic(`User ${user.id} already has role ${role.name}`);
      assertNotProtected(ctx, user, "change the role of");
      user.role_id = role.id;
      user.updated_at = ctx.now();
      ctx.account.users.update(user);
      return ctx.generic(`User ${user.id} now has role ${role.name}`);
    },
  }),

  defineRoute({
    method: "GET",
    path: "/v1/account/roles",
    handler: (ctx) =>
      ctx.json(ctx.account.roles.all().map((role) => renderRole(ctx.account, role))),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/roles",
    body: CreateRoleRequestSchema,
    handler(ctx) {
      const body = ctx.body;
      checkPermissionIds(body.permission_ids);
      assertCanGrant(ctx, body.permission_ids);
      const taken = nameTaken(ctx.account.roles, body.name);
      if (taken !== undefined) {
        throw conflict(`A role named ${body.name} already exists (role ${taken.id})`, taken.id);
      }
      const role = insertRole(ctx, body);
      return ctx.json(renderRole(ctx.account, role), 201);
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/roles/:id/update",
    body: UpdateRoleRequestSchema,
    handler(ctx) {
      const role = findOr404(ctx.account.roles, ctx.intParam("id"), "Role");
      const body = ctx.body;
      if (role.system_role) throw conflict(`${role.name} is a system role and cannot be changed`);
      checkPermissionIds(body.permission_ids);
      assertCanGrant(ctx, body.permission_ids);
      const taken = nameTaken(ctx.account.roles, body.name, role.id);
      if (taken !== undefined) {
        throw conflict(`A role named ${body.name} already exists (role ${taken.id})`, taken.id);
      }
      role.role_permissions = grants(ctx, role.role_permissions, body.permission_ids);
      role.name = body.name;
      role.description = body.description ?? "";
      role.updated_at = ctx.now();
      ctx.account.roles.update(role);
      return ctx.json(renderRole(ctx.account, role));
    },
  }),

  defineRoute({
    method: "DELETE",
    path: "/v1/account/roles/:id",
    handler(ctx) {
      const role = findOr404(ctx.account.roles, ctx.intParam("id"), "Role");
      if (role.system_role) throw conflict(`${role.name} is a system role and cannot be deleted`);
      const holders = ctx.account.users
        .all()
        .filter((u) => u.role_id === role.id)
        .map((u) => u.id);
      if (holders.length > 0) {
        throw conflict(
          `Role ${role.name} is still assigned to user(s) ${holders.join(", ")}; give them another role first`,
        );
      }
      ctx.account.roles.remove(role.id);
      return ctx.generic(`Role ${role.name} deleted`);
    },
  }),
];
