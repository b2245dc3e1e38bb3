/**
 * The current user and the account: introspection, profile and account updates.
 *
 * - A password is write-only: it is stored as a hash and never appears in an answer, a log line
 *   or an error message. Only human users have one; API and DID users sign in with their key or
 *   DID, so a password for them is refused (400) rather than silently stored.
 * - E-mail addresses are unique among the account's users (409).
 * - A country must be one of `GET /v1/countries` (400). A change of country or tax id re-taxes
 *   the account's unpaid invoices at once; paid invoices are final and keep their amounts.
 */
import { createHash } from "node:crypto";
import {
  UpdateAccountRequestSchema,
  UpdateUserProfileRequestSchema,
} from "../../api/schemas/account";
import { conflict, fieldError } from "../http/http-errors";
import { defineRoute } from "../http/router";
import { recomputeInvoice } from "../service/orders";
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
      const body = ctx.body;
      const user = ctx.user;
      if (body.password !== undefined && user.type !== "human") {
        throw fieldError(
          "password",
          `cannot be set for ${user.type} users; they authenticate with their ${user.type === "api" ? "API key" : "DID"}`,
        );
      }
      if (body.email !== undefined) {
        const email = body.email.toLowerCase();
        const taken = ctx.account.users
          .all()
          .some((u) => u.id !== user.id && u.email.toLowerCase() === email);
        if (taken) {
          throw conflict("Another user of this account already uses this e-mail address");
        }
      }
      if (body.name !== undefined) user.name = body.name;
      if (body.last_name !== undefined) user.last_name = body.last_name;
      if (body.email !== undefined) user.email = body.email;
      if (body.password !== undefined) {
        user.password_hash = createHash("sha256").update(body.password, "utf8").digest("hex");
      }
      user.updated_at = ctx.now();
      ctx.account.users.update(user);
      return ctx.json(renderUser(user));
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/users/account",
    body: UpdateAccountRequestSchema,
    handler(ctx) {
      const body = ctx.body;
      const profile = ctx.account.profile;
      if (
        body.country !== undefined &&
        !ctx.catalogue.countries.some((c) => c.iso_a2 === body.country)
      ) {
        throw fieldError("country", `${body.country} is not a country of GET /v1/countries`);
      }
      const retax =
        (body.country !== undefined && body.country !== profile.country) ||
        (body.tax_id !== undefined && body.tax_id !== profile.tax_id);
      const now = ctx.now();
      for (const [field, value] of Object.entries(body)) {
        if (value !== undefined) Object.assign(profile, { [field]: value });
      }
      profile.updated_at = now;
      ctx.account.saveProfile();
      if (retax) {
        for (const invoice of ctx.account.invoices)
          recomputeInvoice(ctx.account, invoice, now, ctx.catalogue.countries);
      }
      return ctx.json(renderAccount(profile));
    },
  }),
];
