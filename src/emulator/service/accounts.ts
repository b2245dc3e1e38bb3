/**
 * Creating accounts and the initial state. A new account has what the real service gives one at
 * sign-up: a profile, the system roles, its owner (a human user holding an Administrator key)
 * and two stored payment cards, since the API has no way to add a card.
 */
import { z } from "zod";
import { permissionByName } from "../data";
import {
  AccountState,
  EmulatorState,
  ID_KINDS,
  type IdKind,
  type RoleRecord,
} from "../store/state";
import type { RowSink } from "../store/table";
import { hashApiKey, newApiKey } from "./auth";
import { SYSTEM_ROLES } from "./permissions";

/** A new account (POST /_emulator/accounts, and each account of a seed document). */
export const AccountRequestSchema = z.strictObject({
  name: z.string().min(1).optional(),
  company: z.string().optional(),
  email: z.string().optional(),
  country: z.string().length(2).optional(),
  api_key: z.string().min(16).optional(),
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
  /** Fix the owner's API key (reproducible set-ups); generated otherwise. */
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
  user.api_key_hash = hash;
  account.users.update(user);
}
