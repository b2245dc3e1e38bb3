/**
 * Creating accounts and the initial state. A new account has what the real service gives one at
 * sign-up: a profile, the system roles, its owner (a human user holding an Administrator key)
 * and two stored payment cards, since the API has no way to add a card.
 */
import { randomBytes, scryptSync } from "node:crypto";
import { z } from "zod";
import type { UpdateAccountRequest, UpdateUserProfileRequest } from "../../api/schemas/account";
import { permissionByName } from "../data";
import { conflict, fieldError, HttpError } from "../http/http-errors";
import {
  type AccountProfile,
  AccountState,
  EmulatorState,
  ID_KINDS,
  type IdKind,
  type RoleRecord,
  type UserRecord,
} from "../store/state";
import type { RowSink } from "../store/table";
import { ApiKeyInputSchema, apiKeyHolder, apiKeyTaken, hashApiKey, newApiKey } from "./auth";
import type { Author } from "./author";
import { recomputeInvoice } from "./orders";
import { SYSTEM_ROLES } from "./permissions";

/** A new account (POST /_emulator/accounts, and each account of a seed document). */
export const AccountRequestSchema = z.strictObject({
  name: z.string().min(1).optional(),
  company: z.string().optional(),
  email: z.string().optional(),
  country: z.string().length(2).optional(),
  api_key: ApiKeyInputSchema.optional(),
});
export type AccountRequest = z.input<typeof AccountRequestSchema>;

/** A state without accounts, whose changes go to `sink`. */
export function emptyState(sink: RowSink): EmulatorState {
  const nextIds = {} as Record<IdKind, number>;
  for (const kind of ID_KINDS) nextIds[kind] = 1;
  return new EmulatorState(sink, { next_ids: nextIds, bootstrap: { account_id: 0, user_id: 0 } });
}

export interface NewAccountOptions {
  name?: string;
  company?: string;
  email?: string;
  country?: string;
  /**
   * Fix the owner's API key (reproducible set-ups); generated otherwise. A key another user holds
   * is refused (409 naming `api_key`): it would keep opening that user's account.
   */
  apiKey?: string;
}

export interface NewAccount {
  account: AccountState;
  apiKey: string;
}

export function createAccount(
  state: EmulatorState,
  now: string,
  options: NewAccountOptions = {},
): NewAccount {
  const taken = options.apiKey === undefined ? undefined : apiKeyTaken(state, options.apiKey);
  if (taken !== undefined) {
    throw new HttpError(409, "conflict", `api_key: ${taken}`, {
      errors: [{ field: "api_key", message: taken }],
    });
  }
  const accountId = state.nextId("account");
  const ownerId = state.nextId("user");
  const roles = SYSTEM_ROLES.map((template): RoleRecord => {
    const id = state.nextId("role");
    return {
      id,
      name: template.name,
      description: template.description,
      system_role: true,
      role_permissions: template.permissions.map((name) => ({
        id: state.nextId("role_permission"),
        permission_id: permissionByName(name).id,
      })),
      created_by: ownerId,
      created_at: now,
      updated_at: now,
    };
  });
  const adminRole = roles[0];
  if (adminRole === undefined)
    throw new Error("SYSTEM_ROLES must start with the administrator role");
  const key = options.apiKey ?? newApiKey().key;
  const name = options.name ?? `Account ${accountId}`;
  const account = new AccountState(state.sink, {
    profile: {
      id: accountId,
      name,
      company: options.company ?? "",
      address: "",
      city: "",
      state: "",
      postal_code: "",
      country: options.country ?? "DE",
      phone: "",
      tax_id: "",
      verified: true,
      auto_pay: false,
      credits: 0,
      created_at: now,
      updated_at: now,
    },
    owner_user_id: ownerId,
  });
  state.accounts.insert(account);
  account.users.insert({
    id: ownerId,
    name,
    last_name: "",
    email: options.email ?? `owner-${accountId}@example.test`,
    type: "human",
    role_id: adminRole.id,
    external: false,
    sys: false,
    api_key_hash: hashApiKey(key),
    created_at: now,
    updated_at: now,
  });
  for (const role of roles) account.roles.insert(role);
  account.cards.insert({
    id: `card_${state.nextId("card")}`,
    brand: "visa",
    last4: "4242",
    exp: "12/30",
    default: true,
  });
  account.cards.insert({
    id: `card_${state.nextId("card")}`,
    brand: "mastercard",
    last4: "4444",
    exp: "06/29",
    default: false,
  });
  return { account, apiKey: key };
}

/** A fresh state whose first account belongs to the bootstrap administrator. */
export function initialState(sink: RowSink, now: string, bootstrapKey: string): EmulatorState {
  const state = emptyState(sink);
  const { account } = createAccount(state, now, {
    name: "Emulator Admin",
    company: "CloudInfra Emulator",
    email: "admin@emulator.test",
    apiKey: bootstrapKey,
  });
  state.setBootstrap({ account_id: account.profile.id, user_id: account.owner_user_id });
  return state;
}

/** Makes `key` the bootstrap administrator's key (CLOUDINFRA_EMULATOR_API_KEY may change). */
export function setBootstrapKey(state: EmulatorState, key: string): void {
  const account = state.accounts.get(state.bootstrap.account_id);
  const user = account?.users.get(state.bootstrap.user_id);
  if (account === undefined || user === undefined) {
    throw new Error("the stored state has no bootstrap administrator");
  }
  const hash = hashApiKey(key);
  if (user.api_key_hash === hash) return;
  const holder = apiKeyHolder(state, key);
  if (holder !== undefined) {
    throw new Error(
      `the bootstrap administrator's key cannot be this one: it already belongs to ${holder} in this emulator; set another with CLOUDINFRA_EMULATOR_API_KEY (or apiKey in-process)`,
    );
  }
  user.api_key_hash = hash;
  account.users.update(user);
}

/**
 * A password as it is kept: scrypt with a random salt, `scrypt:<salt>:<hash>` in base64url. A
 * person picks it (unlike a generated API key), so a leaked state.db must give a guesser no
 * shortcut; nothing reads it back (no route signs in with a password).
 */
function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt:${salt.toString("base64url")}:${hash.toString("base64url")}`;
}

/**
 * Changes the author's own profile. A password is kept only as a hash, and only human users
 * have one (400 for others); e-mail addresses are unique among the account's users (409).
 */
export function updateProfile(
  author: Pick<Author, "account" | "user" | "now">,
  body: UpdateUserProfileRequest,
): UserRecord {
  const { user } = author;
  if (body.password !== undefined && user.type !== "human") {
    throw fieldError(
      "password",
      `cannot be set for ${user.type} users; they authenticate with their ${user.type === "api" ? "API key" : "DID"}`,
    );
  }
  if (body.email !== undefined) {
    const email = body.email.toLowerCase();
    const taken = author.account.users
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
    user.password_hash = hashPassword(body.password);
  }
  user.updated_at = author.now();
  author.account.users.update(user);
  return user;
}

/**
 * Changes the account's fields. The country must be one of the catalogue's (400); a change of
 * country or tax id re-taxes the unpaid invoices at once (paid ones are final).
 */
export function updateAccount(
  author: Pick<Author, "account" | "catalogue" | "now">,
  body: UpdateAccountRequest,
): AccountProfile {
  const { account, catalogue } = author;
  const profile = account.profile;
  if (body.country !== undefined && !catalogue.countries.some((c) => c.iso_a2 === body.country)) {
    throw fieldError("country", `${body.country} is not a country of GET /v1/countries`);
  }
  const retax =
    (body.country !== undefined && body.country !== profile.country) ||
    (body.tax_id !== undefined && body.tax_id !== profile.tax_id);
  const now = author.now();
  for (const [field, value] of Object.entries(body)) {
    if (value !== undefined) Object.assign(profile, { [field]: value });
  }
  profile.updated_at = now;
  account.saveProfile();
  if (retax) {
    for (const invoice of account.invoices)
      recomputeInvoice(account, invoice, now, catalogue.countries);
  }
  return profile;
}
