/**
 * Identity and access management (spec: IAM): the permission catalogue, API and DID users, and
 * roles. Their rules (who may grant what, protected users, unique role names, system roles) are
 * in service/iam.ts, with the operations these routes call.
 */
import {
  CreateRoleRequestSchema,
  CreateUserRequestSchema,
  UpdateRoleRequestSchema,
  UpdateUserRoleRequestSchema,
} from "../../api/schemas/iam";
import { PERMISSIONS, permissionById } from "../data";
import { findOr404 } from "../http/http-errors";
import { defineRoute } from "../http/router";
import {
  changeUserRole,
  createRole,
  createUser,
  deleteRole,
  deleteUser,
  updateRole,
} from "../service/iam";
import type { AccountState, RoleRecord } from "../store/state";

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
      const { user, apiKey } = createUser(ctx, ctx.body);
      // The key leaves the service only here; just its hash is kept.
      return ctx.json({ user_id: user.id, api_key: apiKey }, 201);
    },
  }),

  defineRoute({
    method: "DELETE",
    path: "/v1/account/users/:id",
    handler(ctx) {
      const user = findOr404(ctx.account.users, ctx.intParam("id"), "User");
      deleteUser(ctx, user);
      return ctx.generic(`User ${user.id} deleted; its API key no longer works`);
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/users/:id/update",
    body: UpdateUserRoleRequestSchema,
    handler(ctx) {
      const user = findOr404(ctx.account.users, ctx.intParam("id"), "User");
      const { role, changed } = changeUserRole(ctx, user, ctx.body.role_id);
      return ctx.generic(
        changed
          ? `User ${user.id} now has role ${role.name}`
          : `User ${user.id} already has role ${role.name}`,
      );
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
      const role = createRole(ctx, ctx.body);
      return ctx.json(renderRole(ctx.account, role), 201);
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/account/roles/:id/update",
    body: UpdateRoleRequestSchema,
    handler(ctx) {
      const role = findOr404(ctx.account.roles, ctx.intParam("id"), "Role");
      updateRole(ctx, role, ctx.body);
      return ctx.json(renderRole(ctx.account, role));
    },
  }),

  defineRoute({
    method: "DELETE",
    path: "/v1/account/roles/:id",
    handler(ctx) {
      const role = findOr404(ctx.account.roles, ctx.intParam("id"), "Role");
      deleteRole(ctx.account, role);
      return ctx.generic(`Role ${role.name} deleted`);
    },
  }),
];
