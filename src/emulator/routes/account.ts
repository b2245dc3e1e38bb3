import {
  UpdateAccountRequestSchema,
  UpdateUserProfileRequestSchema,
} from "../../api/schemas/account";
import { defineRoute } from "../http/router";
import { updateAccount, updateProfile } from "../service/accounts";
import type { AccountProfile, AccountState, UserRecord } from "../store/state";
import { renderUser } from "./views";

/** The account as the wire shows it (spec: Account). */
export function renderAccount(profile: AccountProfile) {
  return { ...profile };
}

function membership(account: AccountState, user: UserRecord) {
  const role = account.roles.get(user.role_id);
  return {
    account_id: account.profile.id,
    account_name: account.profile.company === "" ? account.profile.name : account.profile.company,
    role_id: role?.id ?? null,
    role_name: role?.name ?? null,
  };
}

export const routes = [
  defineRoute({
    method: "POST",
    path: "/v1/introspect",
    handler: (ctx) =>
      ctx.json({
        user: renderUser(ctx.user),
        account: renderAccount(ctx.account.profile),
        // A user belongs to exactly one account in this service.
        memberships: [membership(ctx.account, ctx.user)],
      }),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/users/me",
    body: UpdateUserProfileRequestSchema,
    handler(ctx) {
      const user = updateProfile(ctx, ctx.body);
      return ctx.json(renderUser(user));
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/users/account",
    body: UpdateAccountRequestSchema,
    handler(ctx) {
      const profile = updateAccount(ctx, ctx.body);
      return ctx.json(renderAccount(profile));
    },
  }),
];
