/**
 * API keys: `Authorization: ApiKey <key>`. Keys are random, handed out once, and only their
 * sha256 is kept, like the real service promises; no admin route or console page shows it
 * (docs/emulator-auth.md says why an unsalted hash is enough for these keys). DID users have no
 * key hash, so they can never authenticate over HTTP (the spec does not show how a DID request is
 * formed). Failed authentication is throttled per client (auth-throttle.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { checkRequest, expected } from "../../api/schemas/common";
import type { PermissionName } from "../../api/schemas/iam";
import { permissionById } from "../data";
import { HttpError } from "../http/http-errors";
import type { AccountState, EmulatorState, UserRecord } from "../store/state";
import type { AuthThrottle } from "./auth-throttle";

const KEY_PREFIX = "cik_";

/** Shortest key a person may choose (the bootstrap key, seed documents, POST /_emulator/accounts). */
export const MIN_API_KEY_LENGTH = 16;
/** Longest such key. */
export const MAX_API_KEY_LENGTH = 256;

/**
 * A key a person chooses: 16–256 visible ASCII characters, no spaces, since an `Authorization:
 * ApiKey <key>` header must carry it as typed. Generated keys (`cik_` and 43 characters) pass.
 */
export const ApiKeyInputSchema = z
  .string({ error: expected(`an API key of at least ${MIN_API_KEY_LENGTH} characters`) })
  .min(MIN_API_KEY_LENGTH, {
    error: (issue) =>
      `must be at least ${MIN_API_KEY_LENGTH} characters (got ${String(issue.input).length}); a generated key is used when none is given`,
    abort: true,
  })
  .max(MAX_API_KEY_LENGTH, {
    error: `must be at most ${MAX_API_KEY_LENGTH} characters`,
    abort: true,
  })
  .regex(/^[\x21-\x7e]+$/, {
    error: "must be visible ASCII characters without spaces, as an Authorization header carries it",
  });

/** What is wrong with a key a person chose, or undefined when it is fine ({@link ApiKeyInputSchema}). */
export function apiKeyProblem(key: string): string | undefined {
  const checked = checkRequest(ApiKeyInputSchema, key);
  return checked.success ? undefined : checked.fieldErrors[0]?.message;
}

/** A new API key and the hash to store; show `key` to the caller once, store only `hash`. */
export function newApiKey(): { key: string; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString("base64url");
  return { key, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export interface Principal {
  account: AccountState;
  user: UserRecord;
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, "unauthorized", message, {
    headers: { "www-authenticate": 'ApiKey realm="cloudinfra"' },
  });
}

/** The key from an Authorization header, or a 401 that says what is wrong with the header. */
export function keyFromHeader(header: string | undefined): string {
  if (header === undefined || header.trim() === "") {
    throw unauthorized("Missing Authorization header; send `Authorization: ApiKey <key>`");
  }
  const match = /^ApiKey\s+(\S+)\s*$/i.exec(header.trim());
  if (match === null) {
    throw unauthorized("Malformed Authorization header; expected `ApiKey <key>`");
  }
  return match[1] as string;
}

/** The user holding the key whose hash is `hash`, in any account (a scan of every user). */
function holderOf(state: EmulatorState, hash: string): Principal | undefined {
  for (const account of state.accounts) {
    for (const user of account.users) {
      if (user.api_key_hash !== undefined && sameHash(user.api_key_hash, hash)) {
        return { account, user };
      }
    }
  }
  return undefined;
}

/** Who holds `key` in this emulator (`the bootstrap administrator`, `user 3 of account 2`). */
export function apiKeyHolder(state: EmulatorState, key: string): string | undefined {
  const holder = holderOf(state, hashApiKey(key));
  if (holder === undefined) return undefined;
  const { account, user } = holder;
  const bootstrap =
    account.profile.id === state.bootstrap.account_id && user.id === state.bootstrap.user_id;
  return bootstrap
    ? "the bootstrap administrator"
    : `user ${user.id} of account ${account.profile.id}`;
}

/**
 * The one rule for a key given to a new user (POST /_emulator/accounts, seed documents): no
 * other user may hold it, or it would keep opening the first holder's account and the new user
 * could never sign in. Why `key` is taken, or undefined when it is free.
 */
export function apiKeyTaken(state: EmulatorState, key: string): string | undefined {
  const holder = apiKeyHolder(state, key);
  return holder === undefined
    ? undefined
    : `this API key already belongs to ${holder} in this emulator; every key opens one user, so choose another`;
}

/**
 * Finds the user holding a key. The index is only a cache: every hit is checked against the
 * live state, so users deleted or re-keyed by route handlers never authenticate through it.
 */
export class Authenticator {
  private index = new Map<string, { accountId: number; userId: number }>();

  constructor(
    private readonly getState: () => EmulatorState,
    private readonly throttle: AuthThrottle,
  ) {}

  /**
   * The principal whose key the header carries. 429 while `client` is throttled (before the key
   * is looked at); 401 for a missing or malformed header, and for an unknown key, which counts as
   * a failure of `client`.
   */
  authenticate(header: string | undefined, client: string): Principal {
    this.throttle.assertMayTry(client);
    const hash = hashApiKey(keyFromHeader(header));
    const cached = this.index.get(hash);
    if (cached !== undefined) {
      const hit = this.lookup(cached.accountId, cached.userId, hash);
      if (hit !== undefined) return hit;
      this.index.delete(hash);
    }
    const holder = holderOf(this.getState(), hash);
    if (holder === undefined) {
      this.throttle.failed(client);
      throw unauthorized("Unknown API key");
    }
    this.index.set(hash, { accountId: holder.account.profile.id, userId: holder.user.id });
    return holder;
  }

  /** Forget cached keys (after a reset replaces the whole state). */
  clear(): void {
    this.index.clear();
  }

  private lookup(accountId: number, userId: number, hash: string): Principal | undefined {
    const account = this.getState().accounts.get(accountId);
    const user = account?.users.get(userId);
    if (account === undefined || user?.api_key_hash === undefined) return undefined;
    return sameHash(user.api_key_hash, hash) ? { account, user } : undefined;
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** Permission names the user's role holds (none when the role no longer exists). */
export function permissionsOf(account: AccountState, user: UserRecord): Set<PermissionName> {
  const role = account.roles.get(user.role_id);
  const names = new Set<PermissionName>();
  for (const link of role?.role_permissions ?? []) {
    const permission = permissionById(link.permission_id);
    if (permission !== undefined) names.add(permission.name);
  }
  return names;
}
