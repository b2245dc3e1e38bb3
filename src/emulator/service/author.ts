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

/** What every stored record carries: its id, and when it was made and last changed. */
interface Stamped {
  id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Stores a new record of `kind` in `table`: the kind's next id, made and changed now, with the
 * fields `fields` gives for that id (after the id is taken, so ids keep their order).
 */
export function insertNew<R extends Stamped>(
  author: Pick<Author, "now" | "nextId">,
  table: { insert(record: R): R },
  kind: IdKind,
  fields: (id: number) => Omit<R, keyof Stamped>,
): R {
  const now = author.now();
  const id = author.nextId(kind);
  return table.insert({ id, ...fields(id), created_at: now, updated_at: now } as R);
}
