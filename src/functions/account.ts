/**
 * `getAccount`: who the configured API key belongs to (`POST /v1/introspect`): the user, the
 * account and the user's memberships. Needs only a valid key. The key itself is never returned.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Introspect } from "../api/schemas/account";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  orUndefined,
  outputOf,
  presentText,
} from "./common";

/** The user the API key belongs to. */
export interface AccountUserInfo {
  /** User id. */
  id: number;
  /** First name (for API users, the name given at creation). */
  name: string;
  /** Last name; absent when not set. */
  lastName?: string;
  /** E-mail address; absent for API and DID users without one. */
  email?: string;
  /** `human`, `api` or `did`. */
  type: string;
  /** True when the user was created through single sign-on. */
  external: boolean;
  /** True when the user has system access. */
  sys: boolean;
  /** Creation time, RFC 3339. */
  createdAt: string;
  /** Last update time, RFC 3339. */
  updatedAt: string;
}

/** The account the API key acts in. */
export interface AccountInfo {
  /** Account id. */
  id: number;
  /** Full name of the account owner. */
  name: string;
  /** Company name; absent when not set. */
  company?: string;
  /** Street address; absent when not set. */
  address?: string;
  /** City; absent when not set. */
  city?: string;
  /** State or province; absent when not set. */
  state?: string;
  /** Postal code; absent when not set. */
  postalCode?: string;
  /** Country as an ISO 3166-1 alpha-2 code (`DE`); absent when not set. */
  country?: string;
  /** Contact phone; absent when not set. */
  phone?: string;
  /** Tax identification number; absent when not set. */
  taxId?: string;
  /** Whether the account is verified. */
  verified: boolean;
  /** Whether automatic payments are enabled. */
  autoPay: boolean;
  /** Available credits. */
  credits: number;
  /** Creation time, RFC 3339. */
  createdAt: string;
  /** Last update time, RFC 3339. */
  updatedAt: string;
}

/** The user's access to one account. */
export interface MembershipInfo {
  /** Account id. */
  accountId: number;
  /** The account's name; absent when the API sent none. */
  accountName?: string;
  /** The user's role in that account; absent when the API sent none. */
  roleId?: number;
  /** The role's name; absent when the API sent none. */
  roleName?: string;
}

/** Result of {@link getAccount}. */
export interface GetAccountResult {
  /** The user the API key belongs to. */
  user: AccountUserInfo;
  /** The account the key acts in. */
  account: AccountInfo;
  /** The user's access to accounts, with the role in each. */
  memberships: MembershipInfo[];
}

/** Maps the introspection answer to its Pulumi-facing form. */
export function accountFromApi(answer: Introspect): GetAccountResult {
  const { user, account } = answer;
  return {
    user: definedOnly({
      id: user.id,
      name: user.name,
      lastName: presentText(user.last_name),
      email: presentText(user.email),
      type: user.type,
      external: user.external,
      sys: user.sys,
      createdAt: user.created_at,
      updatedAt: user.updated_at,
    }),
    account: definedOnly({
      id: account.id,
      name: account.name,
      company: presentText(account.company),
      address: presentText(account.address),
      city: presentText(account.city),
      state: presentText(account.state),
      postalCode: presentText(account.postal_code),
      country: presentText(account.country),
      phone: presentText(account.phone),
      taxId: presentText(account.tax_id),
      verified: account.verified,
      autoPay: account.auto_pay,
      credits: account.credits,
      createdAt: account.created_at,
      updatedAt: account.updated_at,
    }),
    memberships: answer.memberships.map((m) =>
      definedOnly({
        accountId: m.account_id,
        accountName: presentText(m.account_name),
        roleId: orUndefined(m.role_id),
        roleName: presentText(m.role_name),
      }),
    ),
  };
}

/**
 * The user, account and memberships of the configured API key.
 *
 * @example
 * const { account } = await getAccount();
 * pulumi.log.info(`deploying into account ${account.id} (${account.name})`);
 */
export async function getAccount(opts?: DataSourceOptions): Promise<GetAccountResult> {
  return accountFromApi(
    await callApi("getAccount", (client, o) => client.account.introspect(o), opts),
  );
}

/** {@link getAccount} as an Output. */
export function getAccountOutput(opts?: DataSourceOutputOptions): pulumi.Output<GetAccountResult> {
  return outputOf(undefined, opts, (_, o) => getAccount(o));
}
