/**
 * The one way a resource sends a create: {@link createExactlyOnce}.
 *
 * Pulumi's contract is that a resource is in the state or does not exist. A create whose answer
 * is lost (a 502 or a reset after the service acted, a timeout) breaks it twice over: sending it
 * again makes a duplicate, giving up leaks the object the first request made. So:
 *
 * 1. Before the first request, the ids of every live object of the kind are noted, from a list
 *    requested before it (the latest one of the last moments, shared by the creates of a wave:
 *    what this process's own creates made since is claimed by them, point 2). An object that
 *    existed before the request is never taken for one it made, however alike (a
 *    replacement's create must not claim the server it replaces).
 * 2. After a failure that may have been applied, the list is read again (its reads retried
 *    patiently: a lookup that fails is what leaks objects) and the new objects that match the
 *    request, and that no other create in this process has claimed, are what this request made:
 *    one is the result; several cannot be told apart and fail naming every id; none proves that
 *    nothing was made (after a second look, for a service still working on it), and the request
 *    is sent again, up to {@link DEFAULT_MAX_SENDS} times.
 * 3. A success whose answer names no id (a security group) is found the same way.
 *
 * Within one provider host (one `pulumi up`), creates of a kind that run concurrently do not
 * claim each other's objects: ids answered or found are recorded, sends still in flight are
 * waited for before a lookup, and lookups of one kind run one at a time.
 *
 * Across hosts, a journal on disk (journal.ts) remembers each create until it returned to the
 * engine. A create of the same request that a host killed mid-way left open is taken over first:
 * the object its answer named, or the one new matching object since its own look before, unless
 * a finished create handed that id to the engine.
 */
import { CloudInfraError, ConflictError, isAmbiguousFailure, nameErrorClass } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { aNoun, type KindNames } from "./common";
import {
  type CreateJournal,
  type JournalEntry,
  type JournalTicket,
  requestDigest,
} from "./journal";
import { DEFAULT_MAX_SENDS, RESEND, sendLookResend } from "./resend";
import type { SharedLists } from "./shared-list";

/**
 * Retries of each list read of a create (the look before it, the lookups after it), beyond the
 * client's default: a lookup that gives up early leaks what the create made.
 */
export const LOOKUP_MAX_RETRIES = 8;
/** How long to wait before looking a second time when a lookup found nothing. */
export const DEFAULT_SETTLE_MS = 500;
/**
 * How much earlier than the first unresolved send a holder named by a 409 may seem to be made and
 * still be taken for what that send made (recipe.unique). Its creation time is moved onto this
 * machine's clock through the 409's `Date` header (ConflictError.existingCreatedAtHere), which
 * never dates an object made after the send before it when the header is cut to the second, as
 * HTTP servers write it. The margin covers what that leaves: a header rounded instead of cut,
 * a creation time kept to the second, and the clocks drifting apart between the send and the
 * 409. A stranger's user made less than this before the first send is still taken for ours.
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
  /**
   * Deletes an object a lost answer made that is useless without that answer (a generated key,
   * whose private half was only in it); the create is then sent again. Without it, such an object
   * is the result.
   */
  discard?(live: Live): Promise<void>;
}

/** What {@link createExactlyOnce} needs to know of one create. */
interface CreateRecipe<Answer, Live> {
  /** The kind, for messages. */
  what: KindNames;
  /** What the request asks for, as messages say it after the noun: `named "web"`. */
  describe: string;
  /** The provider session's list cache and create ledger: sessions never share a record. */
  session: { lists: SharedLists; creates: CreateLedger };
  /** Sends the create request, once. */
  send(): Promise<Answer>;
  /** The id the answer names, or `undefined` when it names none (then the object is found). */
  idInAnswer(answer: Answer): number | undefined;
  /**
   * How to find what a request made, or `undefined` when the API cannot list the kind (a user):
   * then a create that may have been applied fails, with {@link CreateRecipe.unlistable} as advice.
   */
  lookup: Lookup<Live> | undefined;
  /** Advice when the outcome cannot be looked up. */
  unlistable?: string;
  /**
   * For a kind the API cannot list whose names the service keeps unique, answering 409 with the
   * holder's id (`existing_id`, wire-contract.md): a user. After a send that may have been
   * applied, the request is sent again: a success proves the earlier send made nothing, and a
   * 409 names what it made, which is useless without its lost answer (an API key) and is
   * deleted with `discard` before sending again. A create that gives up while a send is
   * unresolved stays open in the journal, so that the next run's 409 for the same request is
   * known to be this one's object: never a second object while an earlier create is unresolved.
   * A holder the 409 dates (`existing_created_at`) before the first unresolved send, by more
   * than {@link HOLDER_CLOCK_MARGIN_MS}, is someone else's: the 409 is thrown, nothing deleted.
   */
  unique?: { discard(id: number): Promise<void> };
  /**
   * Where creates are written down (journal.ts), with what identifies this request (its body):
   * a create of the same request that a dead host left open is taken over.
   */
  journal?: { journal: CreateJournal; request: unknown };
  /**
   * The create goes on after this function returns (a server waits until it runs): the caller
   * calls the outcome's `close()` once it returns to the engine, so that a host killed meanwhile
   * leaves the entry open for the next one to take over.
   */
  closesLater?: boolean;
  /** Requests sent at most; default {@link DEFAULT_MAX_SENDS}. */
  maxSends?: number;
  /** Wait before the second look; default {@link DEFAULT_SETTLE_MS}. */
  settleMs?: number;
}

/**
 * What a create made: from the answer, or found (after a lost answer, an answer without id, or
 * left by a dead host). `close()` records that the create returned to the engine; it is done
 * already unless the recipe `closesLater`.
 */
export type CreateOutcome<Answer, Live> = (
  | { id: number; answer: Answer; found?: undefined }
  | { id: number; found: Live; answer?: undefined }
) & { close(): void };

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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sends a create and returns what it made, never a second object and never one that existed
 * before it (see the rule at the top of this module). Failures that prove nothing was applied
 * (a 409, a 400) are thrown as the client threw them, for the caller to explain; everything this
 * function decides is a {@link CreateFailedError} whose message says what it found.
 */
export async function createExactlyOnce<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
): Promise<CreateOutcome<Answer, Live>> {
  const { what, lookup } = recipe;
  const record = recipe.session.creates.record(lookup?.key ?? what.kind);
  const before = lookup === undefined ? undefined : await idsBefore(recipe, lookup);
  const digest =
    recipe.journal === undefined ? undefined : requestDigest(what.kind, recipe.journal.request);
  const journal = recipe.journal?.journal;
  let ticket: JournalTicket | undefined;
  const progress: Progress = {};
  const done = <T extends { id: number }>(outcome: T): T & { close(): void } => {
    // Made and closed at once when the create ends here: one write instead of two.
    if (recipe.closesLater === true) ticket?.made(outcome.id);
    else ticket?.close(outcome.id);
    return { ...outcome, close: () => ticket?.close() };
  };
  try {
    if (journal !== undefined && digest !== undefined && lookup !== undefined) {
      const left = await record.exclusive(() => takeOver(recipe, lookup, journal, digest, record));
      if (left !== undefined) {
        ticket = journal.open(digest, before ?? []);
        if (lookup.discard === undefined) return done({ id: lookup.idOf(left), found: left });
        ticket.made(lookup.idOf(left));
        await discard(recipe, lookup, left, undefined);
        ticket.close();
      }
    }
    // Creates of this request that a dead host left unresolved: their object is the one a 409
    // names (recipe.unique), if it was made after their first unresolved send, which this returns.
    const earlier = (): number | undefined => {
      if (journal === undefined || digest === undefined) return undefined;
      let first: number | undefined;
      for (const orphan of journal.orphans(digest)) {
        const sentAt = orphan.sentAt ?? orphan.at;
        first = first === undefined ? sentAt : Math.min(first, sentAt);
        journal.forget(orphan);
      }
      return first;
    };
    if (journal !== undefined && digest !== undefined) ticket = journal.open(digest, before ?? []);
    return done(await sendAndFind(recipe, record, before, earlier, progress));
  } catch (err) {
    // Left open, the entry tells the next run that a 409 for this request names its object, if
    // made after the first unresolved send.
    if (progress.unresolvedSince === undefined) ticket?.close();
    else ticket?.unresolvedSince(progress.unresolvedSince);
    throw err;
  }
}

/**
 * Whether sends of a create of a unique kind (recipe.unique) may have made an object nobody has
 * found yet, and since when: the first such send, on this machine's clock.
 */
interface Progress {
  unresolvedSince?: number;
}

/** The earlier of two times, either of which may be unknown. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/**
 * Whether the holder a 409 names was made before `sentAt` (this machine's clock), the first send
 * that may have made it, so that it is someone else's; false when the 409 does not date it.
 */
function heldBefore(err: ConflictError, sentAt: number): boolean {
  const made = err.existingCreatedAtHere;
  return made !== undefined && made < sentAt - HOLDER_CLOCK_MARGIN_MS;
}

/** Whether `id` was claimed by another create: of this process, or handed to the engine. */
function claimedElsewhere<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  record: CreateRecord,
  id: number,
): boolean {
  return record.claimed.has(id) || recipe.journal?.journal.claimedIds().has(id) === true;
}

/**
 * A 409 that does not name its holder, or does not date it (a service without the project's
 * `existing_id`, `existing_created_at` or `Date` header): the holder may be someone else's, so
 * nothing is deleted and the create fails naming what it can.
 */
function unprovenHolder<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  holder: number | undefined,
  failure: unknown,
  conflict: ConflictError,
): CreateFailedError {
  const { noun } = recipe.what;
  const first =
    failure === undefined
      ? `a create of this ${noun} was cut short (its provider process died)`
      : summaryOf(failure);
  const which =
    holder === undefined
      ? `as a duplicate, and the service did not say which ${noun} holds what must be unique (existing_id, which the API spec does not promise)`
      : `because ${noun} ${holder} holds what must be unique, and the service did not say when ${noun} ${holder} was made (existing_created_at and a Date header, which the API spec does not promise)`;
  const it = holder === undefined ? `a ${noun} ${recipe.describe}` : `${noun} ${holder}`;
  return new CreateFailedError(
    `${first}; sent again, the request was refused ${which}, so the provider cannot tell whether the lost answer made it: nothing was deleted. If ${it} is the ${noun} ${holder === undefined ? "" : `${recipe.describe} `}this create made, delete it and run pulumi up again; if it is someone else's, choose another name`,
    holder === undefined ? [] : [holder],
    { cause: conflict },
  );
}

/** Sends until the request made something, and finds it when the answer does not say. */
async function sendAndFind<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  record: CreateRecord,
  before: ReadonlySet<number> | undefined,
  earlier: () => number | undefined,
  progress: Progress,
): Promise<
  | { id: number; answer: Answer; found?: undefined }
  | { id: number; found: Live; answer?: undefined }
> {
  const { what, lookup, unique } = recipe;
  const maxSends = recipe.maxSends ?? DEFAULT_MAX_SENDS;
  let failures = 0;
  let lastFailure: unknown;
  const discarded: number[] = [];
  let sentAt = Date.now();

  const sent = await sendLookResend({
    maxSends,
    send: () => {
      sentAt = Date.now();
      return track(recipe, record);
    },
    afterFailure: async (err): Promise<{ found: Live } | typeof RESEND> => {
      const since =
        unique !== undefined && err instanceof ConflictError
          ? earliest(progress.unresolvedSince, earlier())
          : undefined;
      if (since !== undefined && err instanceof ConflictError && unique !== undefined) {
        const holder = err.existingId;
        // Made before every send that may have made it: it held the name all along, and those
        // sends were refused too. So is an object another create claimed.
        if (
          holder !== undefined &&
          (heldBefore(err, since) || claimedElsewhere(recipe, record, holder))
        ) {
          delete progress.unresolvedSince;
          throw err;
        }
        progress.unresolvedSince = since;
        if (holder === undefined || err.existingCreatedAtHere === undefined) {
          throw unprovenHolder(recipe, holder, lastFailure, err);
        }
        // Until it is deleted, the holder is what those sends made: a failure leaves it so.
        await discardHolder(recipe, unique, holder, lastFailure ?? err);
        discarded.push(holder);
        delete progress.unresolvedSince;
        return RESEND;
      }
      if (!isAmbiguousFailure(err)) throw err;
      if (unique !== undefined) {
        progress.unresolvedSince ??= sentAt;
        failures++;
        lastFailure = err;
        return RESEND;
      }
      if (lookup === undefined || before === undefined) {
        throw new CreateFailedError(
          `${summaryOf(err)}; the service may have made the ${what.noun}, and the API cannot list ${what.noun}s to find it${recipe.unlistable === undefined ? "" : `: ${recipe.unlistable}`}`,
          [],
          { cause: err },
        );
      }
      const mark = recipe.session.lists.mark();
      const made = await record.exclusive(() =>
        findMade(recipe, lookup, before, record, err, mark),
      );
      if (made === undefined) {
        failures++;
        lastFailure = err;
        return RESEND;
      }
      if (lookup.discard === undefined) return { found: made };
      await discard(recipe, lookup, made, err);
      discarded.push(lookup.idOf(made));
      failures++;
      lastFailure = err;
      return RESEND;
    },
  });
  if (sent.found !== undefined && lookup !== undefined) {
    return { id: lookup.idOf(sent.found), found: sent.found };
  }
  if (sent.answer !== undefined) {
    const id = recipe.idInAnswer(sent.answer);
    if (id !== undefined) return { id, answer: sent.answer };
    if (lookup === undefined || before === undefined) {
      throw new CreateFailedError(`the service made the ${what.noun} but did not say its id`);
    }
    const mark = recipe.session.lists.mark();
    const made = await record.exclusive(() =>
      findMade(recipe, lookup, before, record, undefined, mark),
    );
    if (made === undefined) {
      throw new CreateFailedError(
        `the service accepted the ${what.noun}, but no new ${what.noun} ${recipe.describe} is in its list (deleted at once by someone else?)`,
      );
    }
    return { id: lookup.idOf(made), found: made };
  }
  if (progress.unresolvedSince !== undefined) {
    throw new CreateFailedError(
      `${summaryOf(lastFailure)}; the request was sent ${maxSends} times and the last one may have made the ${what.noun}, which the API cannot list: the next pulumi up of this project takes it over (deletes it, if the service says it was made after the first of these sends, and creates the ${what.noun} again) from the create journal${journalPlace(recipe)}${recipe.unlistable === undefined ? "" : `; where that journal is not kept: ${recipe.unlistable}`}`,
      [],
      { cause: lastFailure },
    );
  }
  const cleaned =
    discarded.length === 0
      ? "not found: nothing was made"
      : `found useless without the lost answer and deleted (${what.noun} ${discarded.join(", ")}): nothing is left`;
  throw new CreateFailedError(
    `${summaryOf(lastFailure)}; the request was sent ${failures} times and each time it failed, the ${what.noun} was looked for and ${cleaned}; run pulumi up again`,
    [],
    { cause: lastFailure },
  );
}

/**
 * The object a create of the same request made in a host that died before the create returned
 * to the engine (see journal.ts): the id its answer named, or else the one new matching object
 * since its look before that no finished create handed to the engine. Orphans that made nothing
 * are forgotten.
 */
async function takeOver<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  lookup: Lookup<Live>,
  journal: CreateJournal,
  digest: string,
  record: CreateRecord,
): Promise<Live | undefined> {
  const orphans = journal.orphans(digest);
  if (orphans.length === 0) return undefined;
  let live: readonly Live[];
  try {
    live = await lookup.read({ maxRetries: LOOKUP_MAX_RETRIES });
  } catch (err) {
    throw new CreateFailedError(
      `a create of this ${recipe.what.noun} was cut short (its provider process died), and looking for what it made failed (${messageOf(err)}); nothing was sent: run pulumi up again`,
      [],
      { cause: err },
    );
  }
  const claimed = journal.claimedIds();
  const free = (item: Live) => {
    const id = lookup.idOf(item);
    return !claimed.has(id) && !record.claimed.has(id) && lookup.matches(item);
  };
  for (const orphan of orphans) {
    const made = madeBy(orphan, live, lookup, free);
    if (made.length > 1) {
      const ids = made.map((item) => lookup.idOf(item));
      throw new CreateFailedError(
        `a create of this ${recipe.what.noun} was cut short (its provider process died), and ${made.length} ${recipe.what.noun}s ${recipe.describe} appeared since (ids ${ids.join(", ")}); the provider cannot tell which it made: adopt it with adoptId and delete the others, then run pulumi up again`,
        ids,
      );
    }
    journal.forget(orphan);
    const [one] = made;
    if (one !== undefined) {
      record.claimed.add(lookup.idOf(one));
      return one;
    }
  }
  return undefined;
}

/** What an orphan's create made: the object its answer named, or new objects since its look. */
function madeBy<Live>(
  orphan: JournalEntry,
  live: readonly Live[],
  lookup: Lookup<Live>,
  free: (item: Live) => boolean,
): Live[] {
  if (orphan.id !== undefined) {
    return live.filter((item) => lookup.idOf(item) === orphan.id && lookup.matches(item));
  }
  const before = new Set(orphan.before);
  return live.filter((item) => !before.has(lookup.idOf(item)) && free(item));
}

/**
 * Ids of the kind's live objects before the first request: from any list requested before it
 * (shared with the other creates of the moment, see SharedLists.recent), since what this process's
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
    return recipe.session.creates.idsOf(live, (item) => lookup.idOf(item));
  } catch (err) {
    throw new CreateFailedError(
      `reading the ${recipe.what.noun}s before sending the create failed (${messageOf(err)}); nothing was sent`,
      [],
      { cause: err },
    );
  }
}

/** Sends once, recording the request while it is in flight and the id its answer names. */
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
 * The object this request made: new since `before`, matching, claimed by no other create. Runs
 * inside the record's lock; claims what it returns. `failure` is the ambiguous failure being
 * resolved (`undefined` for a success whose answer named no id); `settledMark` marks when the
 * request settled (shared-list.ts). Looks a second time before concluding that nothing was made:
 * the service may still be working on a request whose answer timed out.
 */
async function findMade<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  lookup: Lookup<Live>,
  before: ReadonlySet<number>,
  record: CreateRecord,
  failure: unknown,
  settledMark: number,
): Promise<Live | undefined> {
  // Creates of the same kind still in flight claim their ids when they answer: wait for them.
  await Promise.allSettled([...record.inFlight]);
  for (let look = 1; look <= 2; look++) {
    let mark = settledMark;
    if (look > 1) {
      await sleep(recipe.settleMs ?? DEFAULT_SETTLE_MS);
      mark = recipe.session.lists.mark();
    }
    let live: readonly Live[];
    try {
      // Any list asked for after the request settled shows what it made: the creates of a wave
      // that settled together share one.
      live = await recipe.session.lists.since(
        lookup.key,
        () => lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }),
        mark,
      );
    } catch (err) {
      const first = failure === undefined ? "the create succeeded" : summaryOf(failure);
      throw new CreateFailedError(
        `${first}; looking for the ${recipe.what.noun} it ${failure === undefined ? "made" : "may have made"} failed too (${messageOf(err)}): look for ${aNoun(recipe.what)} ${recipe.describe}, then delete it or adopt it with adoptId before running pulumi up again`,
        [],
        { cause: failure ?? err },
      );
    }
    const made = live.filter((item) => {
      const id = lookup.idOf(item);
      return !before.has(id) && !record.claimed.has(id) && lookup.matches(item);
    });
    if (made.length > 1) {
      const ids = made.map((item) => lookup.idOf(item));
      const cause = failure === undefined ? "the create's answer named no id" : summaryOf(failure);
      throw new CreateFailedError(
        `${cause}; ${made.length} new ${recipe.what.noun}s ${recipe.describe} appeared meanwhile (ids ${ids.join(", ")}) and the provider cannot tell which this request made: delete the ones you do not want, or adopt one with adoptId, then run pulumi up again`,
        ids,
        { cause: failure },
      );
    }
    const [one] = made;
    if (one !== undefined) {
      record.claimed.add(lookup.idOf(one));
      return one;
    }
  }
  return undefined;
}

/**
 * Deletes the object an earlier send of this create made (named by a 409, recipe.unique), which
 * is useless without that send's lost answer; fails with its id when that fails, leaving the
 * create unresolved for the next run.
 */
async function discardHolder<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  unique: { discard(id: number): Promise<void> },
  id: number,
  failure: unknown,
): Promise<void> {
  try {
    await unique.discard(id);
  } catch (err) {
    throw new CreateFailedError(
      `${summaryOf(failure)}; an earlier attempt made ${recipe.what.noun} ${id}, which is useless without its lost answer, and deleting it failed (${messageOf(err)}): the next pulumi up of this project deletes it and creates the ${recipe.what.noun} again, from the create journal${journalPlace(recipe)}; where that journal is not kept, delete ${recipe.what.noun} ${id} yourself`,
      [id],
      { cause: err },
    );
  }
}

/** Where the recipe's journal is, for messages: ` in <dir> (...)`. */
function journalPlace<Answer, Live>(recipe: CreateRecipe<Answer, Live>): string {
  const dir = recipe.journal?.journal.dir;
  if (dir === undefined) return "";
  return ` in ${dir} (on this machine; a CI runner keeps it only if CLOUDINFRA_JOURNAL_DIR is kept between runs)`;
}

/** Deletes a useless object a lost answer made, failing with its id when that fails. */
async function discard<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
  lookup: Lookup<Live>,
  made: Live,
  failure: unknown,
): Promise<void> {
  const id = lookup.idOf(made);
  try {
    await lookup.discard?.(made);
  } catch (err) {
    const first =
      failure === undefined ? "a create cut short by a dead provider process" : summaryOf(failure);
    throw new CreateFailedError(
      `${first}; the request made ${recipe.what.noun} ${id}, which is useless without the lost answer, and deleting it failed (${messageOf(err)}): delete ${recipe.what.noun} ${id}, then run pulumi up again`,
      [id],
      { cause: err },
    );
  }
}
