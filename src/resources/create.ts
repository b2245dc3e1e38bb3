/**
 * The one way a resource sends a create: {@link createExactlyOnce}. A create whose answer is lost
 * (a 502 or a reset after the service acted, a timeout) must neither send again into a duplicate
 * nor give up and leak what it made. Each rule says what it rests on: [spec] the API spec, [HTTP],
 * or [project] the project's wire contract (docs/wire-contract.md), which a service may lack.
 *
 * 1. Ids before: the kind's live ids from a list requested before the first send (shared by the
 *    creates of a moment); an object that existed before is never taken for one the create made.
 *    [spec: the list endpoint; the security groups' `page` parameter is project, and a list that
 *    shows an object twice (a service ignoring it) fails the create]
 * 2. A look after an ambiguous failure (`mayHaveBeenApplied`: a 5xx, a reset or a timeout after
 *    the body was sent): the new objects in a fresh list ({@link LOOKUP_MAX_RETRIES}) that match
 *    the request and no other create claimed are what it made. One is the result; several fail
 *    naming every id; none, after a second look ({@link DEFAULT_SETTLE_MS}), means nothing was
 *    made: the request is sent again, at most {@link DEFAULT_MAX_SENDS} times. A look that fails
 *    fails the create saying what to look for. [spec: the list's fields]
 * 3. Any other failure (a 400, a 409) proves nothing was applied and is thrown as the client
 *    threw it, for the caller to explain (but see 8). [HTTP: a 4xx refuses the request]
 * 4. An answer without an id (a security group) is found as in 2. [spec: GenericResponse]
 * 5. No duplicate within a host: ids answered or found are claimed, sends in flight are awaited
 *    before a look, and a kind's looks run one at a time. [none]
 * 6. No orphan across hosts: a create stays open in the journal (journal.ts) until it returned to
 *    the engine; the next create of the same request takes over an entry a dead host left open:
 *    the id its answer named, or else the one new matching object since its ids before, unless
 *    another create of the kind claimed it (handed it to the engine, or a live host made it).
 *    A create stopped with its request in flight (Cancel, `customTimeouts`) does not look: it
 *    fails and leaves its entry open, for the next run to take over. [as 1 and 2]
 * 7. An object useless without its lost answer (a generated key, a user's API key) is deleted
 *    (`discard`) and the request sent again; a delete that fails fails naming the id. [spec]
 * 8. A kind the API cannot list, with `unique` names (a user): after an ambiguous failure the
 *    request is sent again; a success proves the lost send made nothing; a 409's holder is ours
 *    (deleted as in 7, then sent again) only if made no earlier than the first unresolved send
 *    less {@link HOLDER_CLOCK_MARGIN_MS} and claimed by no other create. A create that gives up
 *    unresolved stays open in the journal with that time, for the next run. [project: unique
 *    user names, the 409's `existing_id` and `existing_created_at`; HTTP's `Date` header]
 *
 * Without the [project] fields rule 8 fails safe: a 409 that does not name or date its holder
 * deletes nothing and fails naming the holder when it can (the entry stays open); a holder made
 * before the first unresolved send, or claimed, fails the create with the 409. Rules 1–7 need
 * only the spec and HTTP. A kind the API cannot list without `unique` names fails after an
 * ambiguous failure, with its `unlistable` advice.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  AbortedError,
  CloudInfraError,
  ConflictError,
  isAmbiguousFailure,
  nameErrorClass,
} from "../api/errors";
import type { RequestOptions } from "../api/http";
import { aNoun, type KindNames } from "./common";
import { type CreateJournal, type JournalTicket, requestDigest } from "./journal";
import { DEFAULT_MAX_SENDS, RESEND, sendLookResend } from "./resend";
import type { SharedLists } from "./shared-list";

/** Retries of each list read of a create, beyond the client's: a look that gives up leaks. */
export const LOOKUP_MAX_RETRIES = 8;
/** The wait before a second look when the first found nothing (rule 2). */
export const DEFAULT_SETTLE_MS = 500;
/**
 * Rule 8: how much earlier than the first unresolved send a holder may seem made and still be
 * ours. Its creation time is moved onto this machine's clock by the 409's `Date` header
 * (ConflictError.existingCreatedAtHere); the margin covers a rounded header, a creation time kept
 * to the second and clock drift. A stranger's user made less than this before is taken for ours.
 */
export const HOLDER_CLOCK_MARGIN_MS = 2000;

/** How to find what a create made in the kind's list. */
export interface Lookup<Live> {
  /** The list's key in the session's SharedLists (`"servers"`): one per API list. */
  key: string;
  /** Every live object of the kind (every page). */
  read(options?: RequestOptions): Promise<readonly Live[]>;
  idOf(live: Live): number;
  /** Whether a live object is what the request asks for. */
  matches(live: Live): boolean;
}

interface CreateRecipe<Answer, Live> {
  what: KindNames;
  /** The request as messages say it after the noun: `named "web"`. */
  describe: string;
  session: { lists: SharedLists; creates: CreateLedger; journal: CreateJournal };
  /** The request's identity in the journal (its body). */
  request: unknown;
  /** Sends the create, once. */
  send(): Promise<Answer>;
  /** The id the answer names; `undefined` when none (rule 4). */
  idInAnswer(answer: Answer): number | undefined;
  /** `undefined` when the API cannot list the kind (a user). */
  lookup: Lookup<Live> | undefined;
  /** Advice when the outcome cannot be looked up. */
  unlistable?: string;
  /** Deletes an object useless without its lost answer (rule 7). */
  discard?(id: number): Promise<void>;
  /** Names are unique though the kind cannot be listed (rule 8). */
  unique?: boolean;
  /** The create goes on after this returns (a server's wait): the caller calls `close()`. */
  closesLater?: boolean;
  /** Default {@link DEFAULT_SETTLE_MS}. */
  settleMs?: number;
}

/** What a create made, answered or found; `close()` says it returned to the engine. */
export type CreateOutcome<Answer, Live> = Made<Answer, Live> & { close(): void };
type Made<Answer, Live> =
  | { id: number; answer: Answer; found?: undefined }
  | { id: number; found: Live; answer?: undefined };

/** This process's creates of one kind (rule 5): claimed ids, sends in flight, the look lock. */
class CreateRecord {
  readonly claimed = new Set<number>();
  readonly inFlight = new Set<Promise<unknown>>();
  #lookups: Promise<unknown> = Promise.resolve();

  /** Runs `lookup` once every lookup started before it has finished. */
  exclusive<T>(lookup: () => Promise<T>): Promise<T> {
    const run = this.#lookups.then(lookup, lookup);
    this.#lookups = run.catch(() => undefined);
    return run;
  }
}

/** A session's create records by kind, and the ids of each list read, computed once per list. */
export class CreateLedger {
  readonly #records = new Map<string, CreateRecord>();
  readonly #idsOfList = new WeakMap<readonly unknown[], ReadonlySet<number>>();

  record(key: string): CreateRecord {
    const record = this.#records.get(key) ?? new CreateRecord();
    this.#records.set(key, record);
    return record;
  }

  idsOf<Live>(list: readonly Live[], idOf: (live: Live) => number): ReadonlySet<number> {
    const ids = this.#idsOfList.get(list) ?? new Set(list.map(idOf));
    this.#idsOfList.set(list, ids);
    return ids;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a message starts with: the failure resolved (without the client's advice to look: we looked), or a dead host's create. */
function causeOf(what: KindNames, failure: unknown): string {
  if (failure === undefined) {
    return `a create of this ${what.noun} was cut short (its provider process died)`;
  }
  return isAmbiguousFailure(failure) ? failure.summary : messageOf(failure);
}

/** A create that failed after the toolkit acted on it; the message says what it found. */
export class CreateFailedError extends CloudInfraError {
  static {
    nameErrorClass(CreateFailedError, "CreateFailedError");
  }
  constructor(
    message: string,
    /** Ids of objects the request may have made, for the user to check. */
    readonly ids: readonly number[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** One create under way. */
interface Run<Answer, Live> {
  recipe: CreateRecipe<Answer, Live>;
  record: CreateRecord;
  /** Rule 1; `undefined` when the kind cannot be listed. */
  before: ReadonlySet<number> | undefined;
  /** Rule 8: the first send that may have made an object nobody found (this machine's clock). */
  unresolvedSince?: number | undefined;
  /** The last failure that may have been applied. */
  lastFailure?: unknown;
  /** Ids deleted by rule 7. */
  discarded: number[];
}

/**
 * Sends a create and returns what it made, by the rules above. A failure that proves nothing was
 * applied is thrown as the client threw it; everything this function decides is a
 * {@link CreateFailedError} saying what it found.
 */
export async function createExactlyOnce<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
): Promise<CreateOutcome<Answer, Live>> {
  const { what, lookup, session } = recipe;
  const { journal } = session;
  const digest = requestDigest(what.kind, recipe.request);
  const record = session.creates.record(lookup?.key ?? what.kind);
  const before = lookup === undefined ? undefined : await idsBefore(recipe, lookup);
  const run: Run<Answer, Live> = { recipe, record, before, discarded: [] };
  let ticket: JournalTicket | undefined;
  const done = (made: Made<Answer, Live>): CreateOutcome<Answer, Live> => {
    // Made and closed at once when the create ends here: one write instead of two.
    if (recipe.closesLater === true) ticket?.made(made.id);
    else ticket?.close(made.id);
    return { ...made, close: () => ticket?.close() };
  };
  try {
    if (lookup !== undefined) {
      const left = await record.exclusive(() => takeOver(run, lookup, digest));
      if (left !== undefined) {
        const id = lookup.idOf(left);
        ticket = journal.open(what.kind, digest, before ?? []);
        if (recipe.discard === undefined) return done({ id, found: left });
        ticket.made(id);
        await discard(run, id, undefined);
        ticket.close();
      }
    } else if (recipe.unique === true) {
      // A dead host's unresolved creates of this request: this one carries their first send on.
      for (const orphan of journal.orphans(digest)) {
        const sentAt = orphan.sentAt ?? orphan.at;
        run.unresolvedSince = Math.min(run.unresolvedSince ?? sentAt, sentAt);
        journal.forget(orphan);
      }
    }
    ticket = journal.open(what.kind, digest, before ?? []);
    if (run.unresolvedSince !== undefined) ticket.unresolvedSince(run.unresolvedSince);
    return done(await sendAndFind(run));
  } catch (err) {
    // Left open, the entry tells the next run when the unresolved sends began (rule 8).
    if (run.unresolvedSince === undefined) ticket?.close();
    else ticket?.unresolvedSince(run.unresolvedSince);
    throw err;
  }
}

/** Sends until the request made something (rules 2, 7, 8), and finds it when the answer does not say (rule 4). */
async function sendAndFind<A, L>(run: Run<A, L>): Promise<Made<A, L>> {
  const { recipe, record, before } = run;
  const { what, lookup } = recipe;
  let sentAt = Date.now();
  const sent = await sendLookResend({
    send: () => {
      sentAt = Date.now();
      return track(recipe, record);
    },
    afterFailure: async (err): Promise<{ found: L } | typeof RESEND> => {
      const since = run.unresolvedSince;
      if (recipe.unique === true && err instanceof ConflictError && since !== undefined) {
        await settleHolder(run, err, since);
        return RESEND;
      }
      if (
        err instanceof AbortedError &&
        err.mayHaveBeenApplied &&
        (lookup !== undefined || recipe.unique === true)
      ) {
        // Stopped in flight (Cancel, customTimeouts): nobody looks now, the next run takes over.
        run.unresolvedSince ??= sentAt;
        throw new CreateFailedError(
          `${err.message}: the next pulumi up of this project takes over what it made ${journalNote(recipe)}`,
          [],
          { cause: err },
        );
      }
      if (!isAmbiguousFailure(err)) throw err;
      run.lastFailure = err;
      if (recipe.unique === true) {
        run.unresolvedSince ??= sentAt;
        return RESEND;
      }
      if (lookup === undefined || before === undefined) {
        throw new CreateFailedError(
          `${causeOf(what, err)}; the service may have made the ${what.noun}, and the API cannot list ${what.noun}s to find it${recipe.unlistable === undefined ? "" : `: ${recipe.unlistable}`}`,
          [],
          { cause: err },
        );
      }
      const made = await findMade(run, lookup, before, err);
      if (made === undefined) return RESEND;
      if (recipe.discard === undefined) return { found: made };
      await discard(run, lookup.idOf(made), err);
      return RESEND;
    },
  });
  if (sent.found !== undefined && lookup !== undefined) {
    return { id: lookup.idOf(sent.found), found: sent.found };
  }
  if (sent.answer === undefined) throw exhausted(run);
  const id = recipe.idInAnswer(sent.answer);
  if (id !== undefined) return { id, answer: sent.answer };
  if (lookup === undefined || before === undefined) {
    throw new CreateFailedError(`the service made the ${what.noun} but did not say its id`);
  }
  const made = await findMade(run, lookup, before, undefined);
  if (made === undefined) {
    throw new CreateFailedError(
      `the service accepted the ${what.noun}, but no new ${what.noun} ${recipe.describe} is in its list (deleted at once by someone else?)`,
    );
  }
  return { id: lookup.idOf(made), found: made };
}

/** Where the next run finds a create left open. */
function journalNote(recipe: { session: { journal: CreateJournal } }): string {
  return `from the create journal in ${recipe.session.journal.dir} (on this machine; a CI runner keeps it only if CLOUDINFRA_JOURNAL_DIR is kept between runs)`;
}

/** Every send failed: what was found, and what the next run does. */
function exhausted<A, L>(run: Run<A, L>): CreateFailedError {
  const { recipe, lastFailure } = run;
  const { noun } = recipe.what;
  const cause = causeOf(recipe.what, lastFailure);
  if (run.unresolvedSince !== undefined) {
    return new CreateFailedError(
      `${cause}; the request was sent ${DEFAULT_MAX_SENDS} times and the last one may have made the ${noun}, which the API cannot list: the next pulumi up of this project takes it over (deletes it, if the service says it was made after the first of these sends, and creates the ${noun} again) ${journalNote(recipe)}${recipe.unlistable === undefined ? "" : `; where that journal is not kept: ${recipe.unlistable}`}`,
      [],
      { cause: lastFailure },
    );
  }
  const cleaned =
    run.discarded.length === 0
      ? "not found: nothing was made"
      : `found useless without the lost answer and deleted (${noun} ${run.discarded.join(", ")}): nothing is left`;
  return new CreateFailedError(
    `${cause}; the request was sent ${DEFAULT_MAX_SENDS} times and each time it failed, the ${noun} was looked for and ${cleaned}; run pulumi up again`,
    [],
    { cause: lastFailure },
  );
}

/** Rule 8: deletes the 409's holder when it is provably what an unresolved send made; else fails. */
async function settleHolder<A, L>(
  run: Run<A, L>,
  err: ConflictError,
  since: number,
): Promise<void> {
  const { what, describe, session } = run.recipe;
  const { noun } = what;
  const holder = err.existingId;
  const made = err.existingCreatedAtHere;
  if (holder === undefined || made === undefined) {
    // A service without the project's fields: the holder may be someone else's.
    const which =
      holder === undefined
        ? `as a duplicate, and the service did not say which ${noun} holds what must be unique (existing_id, which the API spec does not promise)`
        : `because ${noun} ${holder} holds what must be unique, and the service did not say when ${noun} ${holder} was made (existing_created_at and a Date header, which the API spec does not promise)`;
    const it = holder === undefined ? `a ${noun} ${describe}` : `${noun} ${holder}`;
    throw new CreateFailedError(
      `${causeOf(what, run.lastFailure)}; sent again, the request was refused ${which}, so the provider cannot tell whether the lost answer made it: nothing was deleted. If ${it} is the ${noun} ${holder === undefined ? "" : `${describe} `}this create made, delete it and run pulumi up again; if it is someone else's, choose another name`,
      holder === undefined ? [] : [holder],
      { cause: err },
    );
  }
  // Made before every send that may have made it, it held the name all along.
  if (
    made < since - HOLDER_CLOCK_MARGIN_MS ||
    run.record.claimed.has(holder) ||
    session.journal.claimedIds(what.kind).has(holder)
  ) {
    run.unresolvedSince = undefined;
    throw err;
  }
  // Until it is deleted, the holder is what those sends made: a failure leaves them unresolved.
  await discard(run, holder, run.lastFailure);
  run.unresolvedSince = undefined;
}

/** The objects of `live` new since `before`, matching the request, and claimed by nobody. */
function newMatching<L>(
  live: readonly L[],
  lookup: Lookup<L>,
  before: ReadonlySet<number>,
  claimed: (id: number) => boolean,
): L[] {
  return live.filter((item) => {
    const id = lookup.idOf(item);
    return !before.has(id) && !claimed(id) && lookup.matches(item);
  });
}

/**
 * The one object of `made`, claimed; several fail naming them all, since nothing tells which the
 * request made.
 */
function claimOne<A, L>(
  run: Run<A, L>,
  lookup: Lookup<L>,
  made: readonly L[],
  cause: string,
  failure: unknown,
): L | undefined {
  const { what, describe } = run.recipe;
  const ids = made.map((item) => lookup.idOf(item));
  if (ids.length > 1) {
    throw new CreateFailedError(
      `${cause}; ${made.length} new ${what.noun}s ${describe} appeared meanwhile (ids ${ids.join(", ")}) and the provider cannot tell which this request made: delete the ones you do not want, or adopt one with adoptId, then run pulumi up again`,
      ids,
      failure === undefined ? undefined : { cause: failure },
    );
  }
  if (ids[0] !== undefined) run.record.claimed.add(ids[0]);
  return made[0];
}

/** Rule 6: the object a dead host's create of the same request made; orphans that made nothing are forgotten. */
async function takeOver<A, L>(
  run: Run<A, L>,
  lookup: Lookup<L>,
  digest: string,
): Promise<L | undefined> {
  const { recipe, record } = run;
  const { journal } = recipe.session;
  const orphans = journal.orphans(digest);
  if (orphans.length === 0) return undefined;
  const cause = causeOf(recipe.what, undefined);
  const live = await listOf(
    recipe,
    lookup,
    () => lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }),
    (err) =>
      new CreateFailedError(
        `${cause}, and looking for what it made failed (${messageOf(err)}); nothing was sent: run pulumi up again`,
        [],
        { cause: err },
      ),
  );
  // Another create's claims: the orphan's own entry is not among them (its host is gone).
  const claimed = journal.claimedIds(recipe.what.kind);
  const taken = (id: number) => claimed.has(id) || record.claimed.has(id);
  for (const orphan of orphans) {
    const { id } = orphan;
    const made =
      id === undefined
        ? newMatching(live, lookup, new Set(orphan.before), taken)
        : live.filter((item) => lookup.idOf(item) === id && !taken(id) && lookup.matches(item));
    const one = claimOne(run, lookup, made, cause, undefined);
    journal.forget(orphan);
    if (one !== undefined) return one;
  }
  return undefined;
}

/**
 * Rule 1: the ids before the first send, from any list requested shortly before it
 * (SharedLists.recent): what this process's creates made meanwhile is claimed by them.
 */
async function idsBefore<A, L>(
  recipe: CreateRecipe<A, L>,
  lookup: Lookup<L>,
): Promise<ReadonlySet<number>> {
  const live = await listOf(
    recipe,
    lookup,
    () =>
      recipe.session.lists.recent(lookup.key, () =>
        lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }),
      ),
    (err) =>
      new CreateFailedError(
        `reading the ${recipe.what.noun}s before sending the create failed (${messageOf(err)}); nothing was sent`,
        [],
        { cause: err },
      ),
  );
  return recipe.session.creates.idsOf(live, (item) => lookup.idOf(item));
}

/**
 * A list of the kind from `read`, or the error `failed` makes of why not. A list that shows an
 * object twice is refused (rule 1: a service that ignores `page` repeats its first page).
 */
async function listOf<A, L>(
  recipe: CreateRecipe<A, L>,
  lookup: Lookup<L>,
  read: () => Promise<readonly L[]>,
  failed: (err: unknown) => CreateFailedError,
): Promise<readonly L[]> {
  try {
    const live = await read();
    if (recipe.session.creates.idsOf(live, (item) => lookup.idOf(item)).size === live.length) {
      return live;
    }
    const ids = live.map((item) => lookup.idOf(item));
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    throw new Error(
      `the list shows ${recipe.what.noun} ${twice} twice, as a service does that ignores the page parameter`,
    );
  } catch (err) {
    throw failed(err);
  }
}

/** Rule 5: sends once, recording the request while it is in flight and the id its answer names. */
function track<A, L>(recipe: CreateRecipe<A, L>, record: CreateRecord): Promise<A> {
  const tracked = recipe.send().then((answer) => {
    const id = recipe.idInAnswer(answer);
    if (id !== undefined) record.claimed.add(id);
    return answer;
  });
  record.inFlight.add(tracked);
  const settled = () => record.inFlight.delete(tracked);
  tracked.then(settled, settled);
  return tracked;
}

/**
 * Rule 2: the object this request made, in the record's lock once sends in flight have answered
 * (they claim their ids), claimed. `failure` is the ambiguous failure resolved (`undefined` for
 * an answer that named no id). Looks twice before concluding nothing was made: the service may
 * still be working on a timed-out request.
 */
async function findMade<A, L>(
  run: Run<A, L>,
  lookup: Lookup<L>,
  before: ReadonlySet<number>,
  failure: unknown,
): Promise<L | undefined> {
  const { recipe, record } = run;
  const { lists } = recipe.session;
  // Any list asked for after the request settled shows what it made: a wave shares one.
  const settled = lists.mark();
  return record.exclusive(async () => {
    await Promise.allSettled([...record.inFlight]);
    for (let look = 1; look <= 2; look++) {
      if (look > 1) await sleep(recipe.settleMs ?? DEFAULT_SETTLE_MS);
      const mark = look > 1 ? lists.mark() : settled;
      const live = await listOf(
        recipe,
        lookup,
        () => lists.since(lookup.key, () => lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }), mark),
        (err) =>
          new CreateFailedError(
            `${failure === undefined ? "the create succeeded" : causeOf(recipe.what, failure)}; looking for the ${recipe.what.noun} it ${failure === undefined ? "made" : "may have made"} failed too (${messageOf(err)}): look for ${aNoun(recipe.what)} ${recipe.describe}, then delete it or adopt it with adoptId before running pulumi up again`,
            [],
            { cause: failure ?? err },
          ),
      );
      const made = newMatching(live, lookup, before, (id) => record.claimed.has(id));
      const cause =
        failure === undefined ? "the create's answer named no id" : causeOf(recipe.what, failure);
      const one = claimOne(run, lookup, made, cause, failure);
      if (one !== undefined) return one;
    }
    return undefined;
  });
}

/** Rule 7: deletes an object useless without its lost answer, failing with its id when that fails. */
async function discard<A, L>(run: Run<A, L>, id: number, failure: unknown): Promise<void> {
  const { what } = run.recipe;
  try {
    await run.recipe.discard?.(id);
  } catch (err) {
    throw new CreateFailedError(
      `${causeOf(what, failure)}; the request made ${what.noun} ${id}, which is useless without the lost answer, and deleting it failed (${messageOf(err)}): delete ${what.noun} ${id}, then run pulumi up again`,
      [id],
      { cause: err },
    );
  }
  run.discarded.push(id);
}
