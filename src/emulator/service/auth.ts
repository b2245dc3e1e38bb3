/**
 * API keys: `Authorization: ApiKey <key>`. Keys are random, handed out once, and only their
 * sha256 is kept, like the real service promises. DID users have no key hash, so they can
 * never authenticate over HTTP (the spec does not show how a DID request is formed).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PermissionName } from "../../api/schemas/iam";
import { permissionById } from "../data";
import { HttpError } from "../http/http-errors";
import type { AccountState, EmulatorState, UserRecord } from "../store/state";

const KEY_PREFIX = "cik_";

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

/**
 * Finds the user holding a key. The index is only a cache: every hit is checked against the
 * live state, so users deleted or re-keyed by route handlers never authenticate through it.
 */
export class Authenticator {
  private index = new Map<string, { accountId: number; userId: number }>();

  constructor(private readonly getState: () => EmulatorState) {}

  authenticate(header: string | undefined): Principal {
    const hash = hashApiKey(keyFromHeader(header));
    const cached = this.index.get(hash);
    if (cached !== undefined) {
      const hit = this.lookup(cached.accountId, cached.userId, hash);
      if (hit !== undefined) return hit;
      this.index.delete(hash);
    }
    for (const account of this.getState().accounts) {
      for (const user of account.users) {
        if (user.api_key_hash !== undefined && sameHash(user.api_key_hash, hash)) {
          this.index.set(hash, { accountId: account.profile.id, userId: user.id });
          return { account, user };
        }
      }
    }
    throw unauthorized("Unknown API key");
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
