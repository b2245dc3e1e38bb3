/**
 * Who creates records and with what: the plain arguments the service operations take instead
 * of a request. A route passes its `ctx` (which has these members); a seeder builds one for the
 * user it acts as.
 */
import type { AccountState, Catalogue, IdKind, Timestamp, UserRecord } from "../store/state";

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
