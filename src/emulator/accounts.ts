/**
 * Creating accounts and the initial state. A new account has what the real service gives one at
 * sign-up: a profile, the system roles, its owner (a human user holding an Administrator key)
 * and two stored payment cards, since the API has no way to add a card.
 */
import { hashApiKey, newApiKey } from "./auth";
import { permissionByName } from "./data";
import { SYSTEM_ROLES } from "./permissions";
import { type AccountState, type EmulatorState, ID_KINDS, type IdKind } from "./state";

export function emptyState(): EmulatorState {
  const nextIds = {} as Record<IdKind, number>;
  for (const kind of ID_KINDS) nextIds[kind] = 1;
  return { format: 1, nextIds, accounts: [], bootstrap: { account_id: 0, user_id: 0 } };
}

export function nextId(state: EmulatorState, kind: IdKind): number {
  const id = state.nextIds[kind];
  state.nextIds[kind] = id + 1;
  return id;
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
  const accountId = nextId(state, "account");
  const ownerId = nextId(state, "user");
  const roles = SYSTEM_ROLES.map((template) => {
    const id = nextId(state, "role");
    return {
      id,
      name: template.name,
      description: template.description,
      system_role: true,
      role_permissions: template.permissions.map((name) => ({
        id: nextId(state, "role_permission"),
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
  const account: AccountState = {
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
    users: [
      {
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
      },
    ],
    roles,
    servers: [],
    tags: [],
    keys: [],
    security_groups: [],
    tickets: [],
    orders: [],
    invoices: [],
    cards: [
      {
        id: `card_${nextId(state, "card")}`,
        brand: "visa",
        last4: "4242",
        exp: "12/30",
        default: true,
      },
      {
        id: `card_${nextId(state, "card")}`,
        brand: "mastercard",
        last4: "4444",
        exp: "06/29",
        default: false,
      },
    ],
  };
  state.accounts.push(account);
  return { account, apiKey: key };
}

/** A fresh state whose first account belongs to the bootstrap administrator. */
export function initialState(now: string, bootstrapKey: string): EmulatorState {
  const state = emptyState();
  const { account } = createAccount(state, now, {
    name: "Emulator Admin",
    company: "CloudInfra Emulator",
    email: "admin@emulator.test",
    apiKey: bootstrapKey,
  });
  state.bootstrap = { account_id: account.profile.id, user_id: account.owner_user_id };
  return state;
}

/** Makes `key` the bootstrap administrator's key (CLOUDINFRA_EMULATOR_API_KEY may change). */
export function setBootstrapKey(state: EmulatorState, key: string): void {
  const account = state.accounts.find((a) => a.profile.id === state.bootstrap.account_id);
  const user = account?.users.find((u) => u.id === state.bootstrap.user_id);
  if (user === undefined) throw new Error("the stored state has no bootstrap administrator");
  user.api_key_hash = hashApiKey(key);
}
