/**
 * The one way a resource sends a create: {@link createExactlyOnce}. Pulumi's contract is that a
 * resource is in the state or does not exist; a create whose answer is lost (a 502 or a reset
 * after the service acted, a timeout) breaks it twice over: sending again makes a duplicate,
 * giving up leaks what the first request made. Every recovery rule is here, once.
 *
 * The rules, and the wire facts each rests on: [spec] is the API spec (its endpoints and
 * fields), [project] the project's wire contract (docs/wire-contract.md), which a service that
 * keeps only the spec may not offer.
 *
 * 1. Ids noted before the send: the ids of the kind's live objects, from a list requested before
 *    the first send (shared by the creates of a moment). An object that existed before the send
 *    is never taken for one it made, however alike. [spec: the kind's list endpoint; for the paged
 *    security groups, the `page` query parameter is project: a service that ignores it answers
 *    its first page for every page, and a list that shows an object twice fails the create]
 * 2. A look after an ambiguous failure (the client's `mayHaveBeenApplied`: a 5xx, a reset or a
 *    timeout after the body was sent): the list is read again (patiently,
 *    {@link LOOKUP_MAX_RETRIES}), and the new objects that match the request and that no other
 *    create claimed are what it made. One is the result; several fail naming every id; none,
 *    after a second look ({@link DEFAULT_SETTLE_MS}), proves nothing was made and the request is
 *    sent again, at most {@link DEFAULT_MAX_SENDS} times. A look that fails fails the create
 *    saying what to look for. [spec: list fields that show what the request asked for]
 * 3. A failure the client does not call ambiguous (a 400, a 409) proves nothing was applied: it
 *    is thrown as the client threw it, for the caller to explain (but see rule 8).
 *    [HTTP: a 4xx means the request was refused; the spec lists no status codes]
 * 4. An answer without an id (a security group) is found as in 2. [spec: GenericResponse]
 * 5. No duplicate within a host: ids answered or found are claimed, sends in flight are awaited
 *    before a look, looks of a kind run one at a time. [none]
 * 6. No orphan across hosts: each create is written in the journal (journal.ts) until it returned
 *    to the engine; an entry a dead host left open is taken over by the next create of the same
 *    request: the id its answer named, or else the one new matching object since its ids before,
 *    unless another create of the kind claimed it (handed it to the engine, or a live host made
 *    it). [as 1 and 2]
 * 7. An object useless without its lost answer (a generated key, a user's API key) is deleted
 *    (`discard`) and the request sent again; a delete that fails fails naming the id. [spec: DELETE]
 * 8. A kind the API cannot list (a user) with `unique` names: after an ambiguous failure the
 *    request is sent again; a success proves the lost one made nothing; a 409 names the holder,
 *    which is ours (deleted as in 7, then sent again) only when it was made no earlier than the
 *    first unresolved send less {@link HOLDER_CLOCK_MARGIN_MS} and no other create claimed it. A
 *    create that gives up unresolved stays open in the journal with that time, for the next run.
 *    [project: unique user names, the 409's `existing_id` and `existing_created_at`; HTTP's `Date`
 *    header, which moves the holder's time onto this machine's clock]
 *
 * Against a service without the [project] fields, rule 8 fails safe: a 409 that does not name its
 * holder, or does not date it (no `existing_created_at`, no `Date` header), deletes nothing and
 * fails naming the holder's id when it has one (the journal entry stays open); a holder made
 * before the first unresolved send, or claimed by another create, fails the create with the 409.
 * Rules 1–7 need only the spec and HTTP (and fail safe without paging, rule 1). A kind the API cannot list without `unique` names fails after an
 * ambiguous failure, with the kind's `unlistable` advice.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { CloudInfraError, ConflictError, isAmbiguousFailure, nameErrorClass } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { aNoun, type KindNames } from "./common";
import { type CreateJournal, type JournalTicket, requestDigest } from "./journal";
import { DEFAULT_MAX_SENDS, RESEND, sendLookResend } from "./resend";
import type { SharedLists } from "./shared-list";

/** Retries of each list read of a create, beyond the client's: a look that gives up leaks. */
export const LOOKUP_MAX_RETRIES = 8;
/** How long to wait before looking a second time when a look found nothing. */
export const DEFAULT_SETTLE_MS = 500;
/**
 * How much earlier than the first unresolved send a 409's holder may seem to be made and still
 * be taken for what that send made (rule 8). Its creation time is moved onto this machine's clock
 * through the 409's `Date` header (ConflictError.existingCreatedAtHere), which never dates an
 * object made after the send before it when the header is cut to the second; the margin covers a
 * header rounded instead, a creation time kept to the second, and clock drift between the send
 * and the 409. A stranger's user made less than this before the first send is taken for ours.
 */
export const HOLDER_CLOCK_MARGIN_MS = 2000;

/** How to find what a create made, in the kind's list of live objects. */
export interface Lookup<Live> {
  /** The kind's name in the shared-list cache (`"servers"`, `"tags"`): one per API list. */
  key: string;
  /** Reads every live object of the kind (every page). */
  read(options?: RequestOptions): Promise<readonly Live[]>;
  /** The id of a live object. */
  idOf(live: Live): number;
  /** Whether a live object is what this request asks for (name, plan, rules, ...). */
  matches(live: Live): boolean;
}

/** What {@link createExactlyOnce} needs to know of one create. */
interface CreateRecipe<Answer, Live> {
  /** The kind, for messages. */
  what: KindNames;
  /** What the request asks for, as messages say it after the noun: `named "web"`. */
  describe: string;
  /** The provider session's list cache, create ledger and journal: sessions share no record. */
  session: { lists: SharedLists; creates: CreateLedger; journal: CreateJournal };
  /** What identifies the request in the journal (its body): a dead host's create of it is taken over. */
  request: unknown;
  /** Sends the create request, once. */
  send(): Promise<Answer>;
  /** The id the answer names, or `undefined` when it names none (then the object is found). */
  idInAnswer(answer: Answer): number | undefined;
  /** How to find what a request made; `undefined` when the API cannot list the kind (a user). */
  lookup: Lookup<Live> | undefined;
  /** Advice when the outcome cannot be looked up. */
  unlistable?: string;
  /** Deletes an object a lost answer made that is useless without it (rule 7); else it is the result. */
  discard?(id: number): Promise<void>;
  /** The kind cannot be listed, but the service keeps its names unique (rule 8, with `discard`): a user. */
  unique?: boolean;
  /**
   * The create goes on after this returns (a server waits until it runs): the caller calls the
   * outcome's `close()` once it returns to the engine, so a host killed meanwhile leaves the
   * journal entry open for the next one to take over.
   */
  closesLater?: boolean;
  /** Wait before the second look; default {@link DEFAULT_SETTLE_MS}. */
  settleMs?: number;
}

/**
 * What a create made: from the answer, or found (after a lost answer, an answer without id, or
 * left by a dead host). `close()` records that the create returned to the engine; it is done
 * already unless the recipe `closesLater`.
 */
export type CreateOutcome<Answer, Live> = Made<Answer, Live> & { close(): void };
type Made<Answer, Live> =
  | { id: number; answer: Answer; found?: undefined }
  | { id: number; found: Live; answer?: undefined };

/** What this process knows of the creates of one kind through one client. */
class CreateRecord {
  /** Ids that a create in this process answered or found: never another create's. */
  readonly claimed = new Set<number>();
  readonly inFlight = new Set<Promise<unknown>>();
  #lookups: Promise<unknown> = Promise.resolve();

  /** Runs `lookup` after every lookup started before it has finished. */
  exclusive<T>(lookup: () => Promise<T>): Promise<T> {
    const run = this.#lookups.then(lookup, lookup);
    this.#lookups = run.catch(() => undefined);
    return run;
  }
}

/**
 * What one provider session knows of its creates: a record per kind (claims, sends in flight,
 * the lookup lock) and the ids of each list read, by list, so that the creates that share a
 * list share one set (and the journal serializes it once), instead of each paying for the size
 * of the kind.
 */
export class CreateLedger {
  readonly #records = new Map<string, CreateRecord>();
  readonly #idsOfList = new WeakMap<readonly unknown[], ReadonlySet<number>>();

  /** The record of the creates of `key` (a list's key, or a kind that cannot be listed). */
  record(key: string): CreateRecord {
    let record = this.#records.get(key);
    if (record === undefined) {
      record = new CreateRecord();
      this.#records.set(key, record);
    }
    return record;
  }

  /** The ids of the objects of `list`, computed once per list. */
  idsOf<Live>(list: readonly Live[], idOf: (live: Live) => number): ReadonlySet<number> {
    let ids = this.#idsOfList.get(list);
    if (ids === undefined) {
      ids = new Set(list.map(idOf));
      this.#idsOfList.set(list, ids);
    }
    return ids;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An ambiguous failure in words, without the client's advice to go and look: we looked. */
function summaryOf(err: unknown): string {
  if (isAmbiguousFailure(err)) return err.summary;
  return messageOf(err);
}

/** What a message starts with: the failure being resolved, or a dead host's create (rule 6). */
function firstCause(what: KindNames, failure: unknown): string {
  if (failure === undefined) {
    return `a create of this ${what.noun} was cut short (its provider process died)`;
  }
  return summaryOf(failure);
}

/** A create that failed after the toolkit acted on it; the message says what it found. */
export class CreateFailedError extends CloudInfraError {
  static {
    nameErrorClass(CreateFailedError, "CreateFailedError");
  }
  constructor(
    message: string,
    /** Ids of objects the request may have made, when there are any: for the user to check. */
    readonly ids: readonly number[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** One create under way: what its sends and looks found so far. */
interface Run<Answer, Live> {
  recipe: CreateRecipe<Answer, Live>;
  record: CreateRecord;
  /** Ids of the kind's objects before the first send (rule 1); none when it cannot be listed. */
  before: ReadonlySet<number> | undefined;
  /** The first send that may have made an object nobody found (rule 8), this machine's clock. */
  unresolvedSince: number | undefined;
  /** The last send's failure that may have been applied. */
  lastFailure: unknown;
  /** Ids deleted as useless without their lost answer (rule 7). */
  discarded: number[];
}

/**
 * Sends a create and returns what it made, never a second object and never one that existed
 * before it or that another create claimed (the rules at the top of this module). A failure that
 * proves nothing was applied (a 409, a 400) is thrown as the client threw it, for the caller to
 * explain; everything this function decides is a {@link CreateFailedError} saying what it found.
 */
export async function createExactlyOnce<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
): Promise<CreateOutcome<Answer, Live>> {
  const { what, lookup, session } = recipe;
  const { journal } = session;
  const digest = requestDigest(what.kind, recipe.request);
  const record = session.creates.record(lookup?.key ?? what.kind);
  const before = lookup === undefined ? undefined : await idsBefore(recipe, lookup);
  const run: Run<Answer, Live> = {
    recipe,
    record,
    before,
    unresolvedSince: undefined,
    lastFailure: undefined,
    discarded: [],
  };
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
    // Left open, the entry tells the next run that a 409 for this request names its object, if
    // made after the first unresolved send.
    if (run.unresolvedSince === undefined) ticket?.close();
    else ticket?.unresolvedSince(run.unresolvedSince);
    throw err;
  }
}

/** Sends until the request made something (rules 2, 7, 8), and finds it when the answer does not say (rule 4). */
async function sendAndFind<Answer, Live>(run: Run<Answer, Live>): Promise<Made<Answer, Live>> {
  const { recipe, record, before } = run;
  const { what, lookup } = recipe;
  let sentAt = Date.now();
  const sent = await sendLookResend({
    send: () => {
      sentAt = Date.now();
      return track(recipe, record);
    },
    afterFailure: async (err): Promise<{ found: Live } | typeof RESEND> => {
      const since = run.unresolvedSince;
      if (recipe.unique === true && err instanceof ConflictError && since !== undefined) {
        await settleHolder(run, err, since);
        return RESEND;
      }
      if (!isAmbiguousFailure(err)) throw err;
      run.lastFailure = err;
      if (recipe.unique === true) {
        run.unresolvedSince ??= sentAt;
        return RESEND;
      }
      if (lookup === undefined || before === undefined) {
        throw new CreateFailedError(
          `${summaryOf(err)}; the service may have made the ${what.noun}, and the API cannot list ${what.noun}s to find it${recipe.unlistable === undefined ? "" : `: ${recipe.unlistable}`}`,
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

/** Every send failed: what was found, and what the next run does. */
function exhausted<Answer, Live>(run: Run<Answer, Live>): CreateFailedError {
  const { recipe, lastFailure } = run;
  const { noun } = recipe.what;
  if (run.unresolvedSince !== undefined) {
    return new CreateFailedError(
      `${summaryOf(lastFailure)}; the request was sent ${DEFAULT_MAX_SENDS} times and the last one may have made the ${noun}, which the API cannot list: the next pulumi up of this project takes it over (deletes it, if the service says it was made after the first of these sends, and creates the ${noun} again) from the create journal in ${recipe.session.journal.dir} (on this machine; a CI runner keeps it only if CLOUDINFRA_JOURNAL_DIR is kept between runs)${recipe.unlistable === undefined ? "" : `; where that journal is not kept: ${recipe.unlistable}`}`,
      [],
      { cause: lastFailure },
    );
  }
  const cleaned =
    run.discarded.length === 0
      ? "not found: nothing was made"
      : `found useless without the lost answer and deleted (${noun} ${run.discarded.join(", ")}): nothing is left`;
  return new CreateFailedError(
    `${summaryOf(lastFailure)}; the request was sent ${DEFAULT_MAX_SENDS} times and each time it failed, the ${noun} was looked for and ${cleaned}; run pulumi up again`,
    [],
    { cause: lastFailure },
  );
}

/**
 * Rule 8: the holder a 409 names while a send is unresolved is deleted when it is provably what
 * that send made; otherwise the create fails and nothing is deleted.
 */
async function settleHolder<Answer, Live>(
  run: Run<Answer, Live>,
  err: ConflictError,
  since: number,
): Promise<void> {
  const { recipe } = run;
  const holder = err.existingId;
  const made = err.existingCreatedAtHere;
  if (holder === undefined || made === undefined) throw unprovenHolder(run, holder, err);
  // Made before every send that may have made it, it held the name all along and those sends
  // were refused too; an object another create claimed is never ours.
  if (
    made < since - HOLDER_CLOCK_MARGIN_MS ||
    run.record.claimed.has(holder) ||
    recipe.session.journal.claimedIds(recipe.what.kind).has(holder)
  ) {
    run.unresolvedSince = undefined;
    throw err;
  }
  // Until it is deleted, the holder is what those sends made: a failure leaves them unresolved.
  await discard(run, holder, run.lastFailure);
  run.unresolvedSince = undefined;
}

/**
 * A 409 that does not name its holder, or does not date it (a service without the project's
 * `existing_id`, `existing_created_at` or `Date` header): the holder may be someone else's, so
 * nothing is deleted and the create fails naming what it can.
 */
function unprovenHolder<Answer, Live>(
  run: Run<Answer, Live>,
  holder: number | undefined,
  conflict: ConflictError,
): CreateFailedError {
  const { what, describe } = run.recipe;
  const { noun } = what;
  const which =
    holder === undefined
      ? `as a duplicate, and the service did not say which ${noun} holds what must be unique (existing_id, which the API spec does not promise)`
      : `because ${noun} ${holder} holds what must be unique, and the service did not say when ${noun} ${holder} was made (existing_created_at and a Date header, which the API spec does not promise)`;
  const it = holder === undefined ? `a ${noun} ${describe}` : `${noun} ${holder}`;
  return new CreateFailedError(
    `${firstCause(what, run.lastFailure)}; sent again, the request was refused ${which}, so the provider cannot tell whether the lost answer made it: nothing was deleted. If ${it} is the ${noun} ${holder === undefined ? "" : `${describe} `}this create made, delete it and run pulumi up again; if it is someone else's, choose another name`,
    holder === undefined ? [] : [holder],
    { cause: conflict },
  );
}

/** The objects of `live` new since `before`, matching the request, and claimed by nobody. */
function newMatching<Live>(
  live: readonly Live[],
  lookup: Lookup<Live>,
  before: ReadonlySet<number>,
  claimed: (id: number) => boolean,
): Live[] {
  return live.filter((item) => {
    const id = lookup.idOf(item);
    return !before.has(id) && !claimed(id) && lookup.matches(item);
  });
}

/** Several new objects match and nothing tells which the request made: fails naming them all. */
function cannotTell<Answer, Live>(
  run: Run<Answer, Live>,
  lookup: Lookup<Live>,
  made: readonly Live[],
  cause: string,
  failure: unknown,
): CreateFailedError {
  const { what, describe } = run.recipe;
  const ids = made.map((item) => lookup.idOf(item));
  return new CreateFailedError(
    `${cause}; ${made.length} new ${what.noun}s ${describe} appeared meanwhile (ids ${ids.join(", ")}) and the provider cannot tell which this request made: delete the ones you do not want, or adopt one with adoptId, then run pulumi up again`,
    ids,
    failure === undefined ? undefined : { cause: failure },
  );
}

/**
 * Rule 6: the object a create of the same request made in a host that died before it returned
 * to the engine: the id its answer named, or else the one new matching object since its ids
 * before that no other create claimed. Orphans that made nothing are forgotten.
 */
async function takeOver<Answer, Live>(
  run: Run<Answer, Live>,
  lookup: Lookup<Live>,
  digest: string,
): Promise<Live | undefined> {
  const { recipe, record } = run;
  const { journal } = recipe.session;
  const orphans = journal.orphans(digest);
  if (orphans.length === 0) return undefined;
  const cause = firstCause(recipe.what, undefined);
  let live: readonly Live[];
  try {
    live = await lookup.read({ maxRetries: LOOKUP_MAX_RETRIES });
    idsOfList(recipe, lookup, live);
  } catch (err) {
    throw new CreateFailedError(
      `${cause}, and looking for what it made failed (${messageOf(err)}); nothing was sent: run pulumi up again`,
      [],
      { cause: err },
    );
  }
  // Another create's claims: the orphan's own entry is not among them (its host is gone).
  const claimed = journal.claimedIds(recipe.what.kind);
  const taken = (id: number) => claimed.has(id) || record.claimed.has(id);
  for (const orphan of orphans) {
    const { id } = orphan;
    const made =
      id === undefined
        ? newMatching(live, lookup, new Set(orphan.before), taken)
        : live.filter((item) => lookup.idOf(item) === id && !taken(id) && lookup.matches(item));
    if (made.length > 1) throw cannotTell(run, lookup, made, cause, undefined);
    journal.forget(orphan);
    const [one] = made;
    if (one !== undefined) {
      record.claimed.add(lookup.idOf(one));
      return one;
    }
  }
  return undefined;
}

/**
 * Rule 1: ids of the kind's live objects before the first send, from any list requested before
 * it (shared with the other creates of the moment, SharedLists.recent), since what this process's
 * creates made meanwhile is claimed by them.
 */
async function idsBefore<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  lookup: Lookup<Live>,
): Promise<ReadonlySet<number>> {
  try {
    const live = await recipe.session.lists.recent(lookup.key, () =>
      lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }),
    );
    return idsOfList(recipe, lookup, live);
  } catch (err) {
    throw new CreateFailedError(
      `reading the ${recipe.what.noun}s before sending the create failed (${messageOf(err)}); nothing was sent`,
      [],
      { cause: err },
    );
  }
}

/**
 * The ids of a list of the kind (once per list, CreateLedger.idsOf). A list that shows an object
 * twice is refused, whoever read it: a service that ignores the `page` parameter (rule 1) answers
 * its first page for every page, and such a list may hide what a create made.
 */
function idsOfList<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  lookup: Lookup<Live>,
  live: readonly Live[],
): ReadonlySet<number> {
  const ids = recipe.session.creates.idsOf(live, (item) => lookup.idOf(item));
  if (ids.size === live.length) return ids;
  const seen = new Set<number>();
  let twice: number | undefined;
  for (const item of live) {
    twice = lookup.idOf(item);
    if (seen.has(twice)) break;
    seen.add(twice);
  }
  throw new Error(
    `the list shows ${recipe.what.noun} ${twice} twice, as a service does that ignores the page parameter`,
  );
}

/** Rule 5: sends once, recording the request while it is in flight and the id its answer names. */
function track<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  record: CreateRecord,
): Promise<Answer> {
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
 * Rule 2: the object this request made: new since `before`, matching, claimed by no other create
 * (sends of the kind still in flight are awaited first: they claim their ids when they answer).
 * Runs in the record's lock and claims what it returns. `failure` is the ambiguous failure being
 * resolved (`undefined` for a success whose answer named no id). Looks a second time before
 * concluding that nothing was made: the service may still be working on a timed-out request.
 */
async function findMade<Answer, Live>(
  run: Run<Answer, Live>,
  lookup: Lookup<Live>,
  before: ReadonlySet<number>,
  failure: unknown,
): Promise<Live | undefined> {
  const { recipe, record } = run;
  const { lists } = recipe.session;
  // Any list asked for after the request settled shows what it made: the creates of a wave that
  // settled together share one.
  const settled = lists.mark();
  return record.exclusive(async () => {
    await Promise.allSettled([...record.inFlight]);
    for (let look = 1; look <= 2; look++) {
      let mark = settled;
      if (look > 1) {
        await sleep(recipe.settleMs ?? DEFAULT_SETTLE_MS);
        mark = lists.mark();
      }
      let live: readonly Live[];
      try {
        live = await lists.since(
          lookup.key,
          () => lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }),
          mark,
        );
        idsOfList(recipe, lookup, live);
      } catch (err) {
        const first = failure === undefined ? "the create succeeded" : summaryOf(failure);
        throw new CreateFailedError(
          `${first}; looking for the ${recipe.what.noun} it ${failure === undefined ? "made" : "may have made"} failed too (${messageOf(err)}): look for ${aNoun(recipe.what)} ${recipe.describe}, then delete it or adopt it with adoptId before running pulumi up again`,
          [],
          { cause: failure ?? err },
        );
      }
      const made = newMatching(live, lookup, before, (id) => record.claimed.has(id));
      if (made.length > 1) {
        const cause =
          failure === undefined ? "the create's answer named no id" : summaryOf(failure);
        throw cannotTell(run, lookup, made, cause, failure);
      }
      const [one] = made;
      if (one !== undefined) {
        record.claimed.add(lookup.idOf(one));
        return one;
      }
    }
    return undefined;
  });
}

/** Rule 7: deletes an object useless without its lost answer, failing with its id when that fails. */
async function discard<Answer, Live>(
  run: Run<Answer, Live>,
  id: number,
  failure: unknown,
): Promise<void> {
  const { what } = run.recipe;
  try {
    await run.recipe.discard?.(id);
  } catch (err) {
    throw new CreateFailedError(
      `${firstCause(what, failure)}; the request made ${what.noun} ${id}, which is useless without the lost answer, and deleting it failed (${messageOf(err)}): delete ${what.noun} ${id}, then run pulumi up again`,
      [id],
      { cause: err },
    );
  }
  run.discarded.push(id);
}
