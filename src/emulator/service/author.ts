/**
 * Who creates records and with what: the plain arguments the service operations take instead
 * of a request. A route passes its `ctx` (which has these members); a seeder builds one for the
 * user it acts as.
 */
import type {
  AccountState,
  Catalogue,
  EmulatorState,
  IdKind,
  Timestamp,
  UserRecord,
} from "../store/state";

export interface Author {
  /** The account the records belong to. */
  readonly account: AccountState;
  /** The user who makes them (`user_id`, `created_by`). */
  readonly user: UserRecord;
  readonly catalogue: Catalogue;
  /** The emulator clock's time, for every timestamp. */
  now(): Timestamp;
  /** A fresh id of this kind, unique across accounts and never reused. */
  nextId(kind: IdKind): number;
}

/**
 * The account's owner as the author of what a seeder makes, at `now`, as if someone had clicked
 * it together in the console.
 */
export function ownerOf(
  state: EmulatorState,
  account: AccountState,
  catalogue: Catalogue,
  now: Timestamp,
): Author {
  const owner = account.users.get(account.owner_user_id);
  if (owner === undefined) throw new Error(`account ${account.id} has no owner`);
  return { account, user: owner, catalogue, now: () => now, nextId: (kind) => state.nextId(kind) };
}
