/**
 * The one way a resource sends a create: {@link createExactlyOnce}. A create whose answer is lost
 * (a 502 or a reset after the service acted, a timeout) must neither send again into a duplicate
 * nor leak what it made. Each rule rests on [spec] the API spec, [HTTP], or [project] the
 * project's wire contract (docs/wire-contract.md), which a service may lack.
 *
 * 1. Ids in a list requested before the first send (shared by the creates of a moment) are never
 *    taken for what the create made. [spec: the list endpoint; the security groups' `page` is
 *    project: a list showing an object twice fails the create]
 * 2. After an ambiguous failure (a 5xx, a reset, a timeout after the body was sent), the new
 *    objects in a fresh list that match the request and no other create claimed are what it
 *    made [spec]: one is the result; several fail naming every id; none, after a second look,
 *    means nothing was made: the request is sent again, at most {@link DEFAULT_MAX_SENDS} times.
 * 3. Any other failure (a 400, a 409) proves nothing was applied and is thrown as it is, for the
 *    caller to explain (but see 8). [HTTP: a 4xx refuses the request]
 * 4. An answer without an id (a security group) is found as in 2. [spec: GenericResponse]
 * 5. No duplicate within a host: ids answered or found are claimed, sends in flight are awaited
 *    before a look, and a kind's looks run one at a time. [none]
 * 6. No orphan across hosts: a create stays open in the journal (journal.ts) until the caller
 *    closes it; the next create of the same request takes over what a dead host's open entry
 *    made (the id its answer named, else the one new matching object since its ids before)
 *    unless another create of the kind claimed it. A create stopped in flight (Cancel,
 *    `customTimeouts`) fails without a look, its entry left open. [1, 2]
 * 7. An object useless without its lost answer (a generated key, a user's API key) is deleted
 *    (`discard`) and the request sent again; a delete that fails fails naming the id. [spec]
 * 8. A kind the API cannot list (a user): after an ambiguous failure the request is sent again;
 *    a success proves the lost send made nothing; a 409's holder is ours (deleted as in 7, then
 *    sent again) only if made no earlier than the first unresolved send less
 *    {@link HOLDER_CLOCK_MARGIN_MS} and claimed by no other create. A create that gives up
 *    unresolved leaves its entry open with that time. [project: unique user names, the 409's
 *    `existing_id` and `existing_created_at`; HTTP's `Date` header]
 *
 * Without the [project] fields rule 8 fails safe: a 409 that does not name or date its holder
 * deletes nothing and fails naming the holder when it can (the entry stays open). Against a service
 * whose user names are not unique (the spec does not say they are), the send after a lost answer
 * can make a second user: nothing is deleted, and the first is left for the user to find by name.
 */
import { setTimeout as sleep } from "node:timers/promises";
import {
  AbortedError,
  CloudInfraError,
  ConflictError,
  isAmbiguousFailure,
  nameErrorClass,
} from "../api/errors";
import { messageOf } from "../lib/message";
import { aNoun, type KindNames } from "./common";
import { type CreateJournal, type JournalTicket, requestDigest } from "./journal";
import type { KindList } from "./kind";
import type { SharedLists } from "./shared-list";

/** Retries of each list read of a create, beyond the client's: a look that gives up leaks. */
export const LOOKUP_MAX_RETRIES = 8;
/** The wait before a second look when the first found nothing (rule 2). */
export const DEFAULT_SETTLE_MS = 500;
/** Requests sent at most, while each one provably did nothing. */
export const DEFAULT_MAX_SENDS = 3;
/** Rule 8's margin for a rounded `Date` header, seconds-only times and clock drift. */
export const HOLDER_CLOCK_MARGIN_MS = 2000;

/** How to find what a create made in the kind's list. */
export interface Lookup<Live> extends KindList<Live> {
  idOf(live: Live): number;
  matches(live: Live): boolean;
}

/** What a create needs: src/resources/README.md, "The toolkit". */
interface CreateRecipe<Answer, Live> {
  what: KindNames;
  /** The request after the noun: `named "web"`. */
  describe: string;
  session: { lists: SharedLists; creates: CreateLedger; journal: CreateJournal };
  /** The request's identity in the journal (its body). */
  request: unknown;
  send(): Promise<Answer>;
  idInAnswer(answer: Answer): number | undefined;
  /** `undefined` when the API cannot list the kind (rule 8). */
  lookup: Lookup<Live> | undefined;
  /** Rule 8's advice where the journal is not kept. */
  unlistable?: string | undefined;
  discard?: ((id: number) => Promise<void>) | undefined;
  settleMs?: number;
}

/** What a create made, answered or found; `close()` says it returned to the engine (rule 6). */
export type CreateOutcome<Answer, Live> = Made<Answer, Live> & { close(): void };
type Made<Answer, Live> = { id: number } & AnsweredOrFound<Answer, Live>;
/** The request's answer, or what a look found that it made. */
type AnsweredOrFound<A, F> = { answer: A; found?: undefined } | { found: F; answer?: undefined };

/** This process's creates of one kind (rule 5). */
class CreateRecord {
  readonly claimed = new Set<number>();
  readonly inFlight = new Set<Promise<unknown>>();
  #lookups: Promise<unknown> = Promise.resolve();

  exclusive<T>(lookup: () => Promise<T>): Promise<T> {
    const run = this.#lookups.then(lookup, lookup);
    this.#lookups = run.catch(() => undefined);
    return run;
  }
}

/** This process's creates, by the kind's list key. */
export class CreateLedger extends Map<string, CreateRecord> {}

/** What `afterFailure` returns when the failed send provably did nothing. */
export const RESEND = Symbol("resend");

/**
 * The one send / look / resend loop, for creates and a server's management actions: after each
 * failure `afterFailure` returns what the lost request did, {@link RESEND}, or throws.
 */
export async function sendLookResend<Answer, Found>(loop: {
  send(): Promise<Answer>;
  afterFailure(err: unknown): Promise<{ found: Found } | typeof RESEND>;
}): Promise<
  | (AnsweredOrFound<Answer, Found> & { exhausted?: undefined })
  | { exhausted: true; answer?: undefined; found?: undefined }
> {
  for (let sent = 1; sent <= DEFAULT_MAX_SENDS; sent++) {
    try {
      return { answer: await loop.send() };
    } catch (err) {
      const after = await loop.afterFailure(err);
      if (after !== RESEND) return { found: after.found };
    }
  }
  return { exhausted: true };
}

/** A message's start: the failure without the client's advice to look (we looked). */
function causeOf(what: KindNames, failure: unknown): string {
  if (failure === undefined) {
    return `a create of this ${what.noun} was cut short (its provider process died)`;
  }
  return isAmbiguousFailure(failure) ? failure.summary : messageOf(failure);
}

/** A create that failed after the toolkit acted on it, saying what it found. */
export class CreateFailedError extends CloudInfraError {
  static {
    nameErrorClass(CreateFailedError, "CreateFailedError");
  }
  constructor(
    message: string,
    options?: ErrorOptions,
    /** What the request may have made. */
    readonly ids: readonly number[] = [],
  ) {
    super(message, options);
  }
}

export async function createExactlyOnce<Answer, Live>(
  recipe: CreateRecipe<Answer, Live>,
): Promise<CreateOutcome<Answer, Live>> {
  const { what, lookup } = recipe;
  const { journal } = recipe.session;
  const digest = requestDigest(what.kind, recipe.request);
  const run = new CreateRun(recipe);
  let ticket: JournalTicket | undefined;
  const done = (made: Made<Answer, Live>): CreateOutcome<Answer, Live> => {
    ticket?.made(made.id);
    return { ...made, close: () => ticket?.close() };
  };
  try {
    if (lookup !== undefined) {
      run.before = await run.idsBefore(lookup);
      const left = await run.record.exclusive(() => run.takeOver(lookup, digest));
      if (left !== undefined) {
        const id = lookup.idOf(left);
        ticket = journal.open(what.kind, digest, run.before);
        if (recipe.discard === undefined) return done({ id, found: left });
        ticket.made(id);
        await run.discard(id, undefined);
        ticket.close();
      }
    } else {
      // A dead host's unresolved creates of this request: this one carries their first send on.
      for (const orphan of journal.orphans(digest)) {
        const sentAt = orphan.sentAt ?? orphan.at;
        run.unresolvedSince = Math.min(run.unresolvedSince ?? sentAt, sentAt);
        journal.forget(orphan);
      }
    }
    ticket = journal.open(what.kind, digest, run.before);
    if (run.unresolvedSince !== undefined) ticket.unresolvedSince(run.unresolvedSince);
    return done(await run.sendAndFind());
  } catch (err) {
    // Left open, the entry tells the next run when the unresolved sends began (rule 8).
    if (run.unresolvedSince === undefined) ticket?.close();
    else ticket?.unresolvedSince(run.unresolvedSince);
    throw err;
  }
}

/** One create: its recipe, its kind's record, and what its sends left behind. */
class CreateRun<A, L> {
  readonly record: CreateRecord;
  /** Rule 1's ids. */
  before: ReadonlySet<number> = new Set();
  /** Rule 8: the first send that may have made an object nobody found (this clock). */
  unresolvedSince: number | undefined;
  /** When the latest request was sent (this clock). */
  sentAt = 0;
  lastFailure: unknown;
  /** Rule 7's deletes. */
  readonly discarded: number[] = [];

  constructor(readonly recipe: CreateRecipe<A, L>) {
    const { creates } = recipe.session;
    const key = recipe.lookup?.key ?? recipe.what.kind;
    this.record = creates.get(key) ?? new CreateRecord();
    creates.set(key, this.record);
  }

  async sendAndFind(): Promise<Made<A, L>> {
    const { recipe } = this;
    const { what, lookup } = recipe;
    const sent = await sendLookResend({
      send: () => this.track(),
      afterFailure: async (err): Promise<{ found: Made<A, L> } | typeof RESEND> => {
        const since = this.unresolvedSince;
        if (lookup === undefined && err instanceof ConflictError && since !== undefined) {
          await this.settleHolder(err, since);
          return RESEND;
        }
        if (err instanceof AbortedError && err.mayHaveBeenApplied) {
          this.unresolvedSince ??= this.sentAt;
          throw new CreateFailedError(
            `${err.message}: the next pulumi up of this project takes over what it made ${this.journalNote()}`,
            { cause: err },
          );
        }
        if (!isAmbiguousFailure(err)) throw err;
        this.lastFailure = err;
        if (lookup === undefined) {
          this.unresolvedSince ??= this.sentAt;
          return RESEND;
        }
        const made = await this.findMade(lookup, err);
        if (made === undefined) return RESEND;
        const id = lookup.idOf(made);
        if (recipe.discard === undefined) return { found: { id, found: made } };
        await this.discard(id, err);
        return RESEND;
      },
    });
    if (sent.found !== undefined) return sent.found;
    if (sent.answer === undefined) throw this.exhausted();
    const id = recipe.idInAnswer(sent.answer);
    if (id !== undefined) return { id, answer: sent.answer };
    if (lookup === undefined) {
      throw new CreateFailedError(`the service made the ${what.noun} but did not say its id`);
    }
    const made = await this.findMade(lookup, undefined);
    if (made === undefined) {
      throw new CreateFailedError(
        `the service accepted the ${what.noun}, but no new ${what.noun} ${recipe.describe} is in its list (deleted at once by someone else?)`,
      );
    }
    return { id: lookup.idOf(made), found: made };
  }

  journalNote(): string {
    return `from the create journal in ${this.recipe.session.journal.dir} (on this machine; a CI runner keeps it only if CLOUDINFRA_JOURNAL_DIR is kept between runs)`;
  }

  /** Every send failed: what was found, what the next run does. */
  exhausted(): CreateFailedError {
    const { recipe, lastFailure, discarded } = this;
    const { noun } = recipe.what;
    const cleaned =
      discarded.length === 0
        ? "not found: nothing was made"
        : `found useless without the lost answer and deleted (${noun} ${discarded.join(", ")}): nothing is left`;
    const outcome =
      this.unresolvedSince === undefined
        ? `each time it failed, the ${noun} was looked for and ${cleaned}; run pulumi up again`
        : `the last one may have made the ${noun}, which the API cannot list: the next pulumi up of this project takes it over (deletes it, if the service says it was made after the first of these sends, and creates the ${noun} again) ${this.journalNote()}${recipe.unlistable === undefined ? "" : `; where that journal is not kept: ${recipe.unlistable}`}`;
    return new CreateFailedError(
      `${causeOf(recipe.what, lastFailure)}; the request was sent ${DEFAULT_MAX_SENDS} times and ${outcome}`,
      { cause: lastFailure },
    );
  }

  /** Rule 8. */
  async settleHolder(err: ConflictError, since: number): Promise<void> {
    const { what, describe, session } = this.recipe;
    const { noun } = what;
    const holder = err.existingId;
    const made = err.existingCreatedAtHere;
    if (holder === undefined || made === undefined) {
      const which =
        holder === undefined
          ? `as a duplicate, and the service did not say which ${noun} holds what must be unique (existing_id, which the API spec does not promise)`
          : `because ${noun} ${holder} holds what must be unique, and the service did not say when ${noun} ${holder} was made (existing_created_at and a Date header, which the API spec does not promise)`;
      const it = holder === undefined ? `a ${noun} ${describe}` : `${noun} ${holder}`;
      throw new CreateFailedError(
        `${causeOf(what, this.lastFailure)}; sent again, the request was refused ${which}, so the provider cannot tell whether the lost answer made it: nothing was deleted. If ${it} is the ${noun} ${holder === undefined ? "" : `${describe} `}this create made, delete it and run pulumi up again; if it is someone else's, choose another name`,
        { cause: err },
        holder === undefined ? [] : [holder],
      );
    }
    if (
      made < since - HOLDER_CLOCK_MARGIN_MS ||
      this.record.claimed.has(holder) ||
      session.journal.claimedIds(what.kind).has(holder)
    ) {
      this.unresolvedSince = undefined;
      throw err;
    }
    // Until it is deleted, the holder is what those sends made: a failure leaves them unresolved.
    await this.discard(holder, this.lastFailure);
    this.unresolvedSince = undefined;
  }

  /** Claims the one unclaimed `candidate` of `live` matching the request; several fail naming all. */
  claimOne(
    lookup: Lookup<L>,
    live: readonly L[],
    candidate: (id: number) => boolean,
    cause: string,
    failure?: unknown,
  ): L | undefined {
    const { what, describe } = this.recipe;
    const { claimed } = this.record;
    const free = (id: number) => candidate(id) && !claimed.has(id);
    const made = live.filter((item) => free(lookup.idOf(item)) && lookup.matches(item));
    const ids = made.map((item) => lookup.idOf(item));
    if (ids.length > 1) {
      throw new CreateFailedError(
        `${cause}; ${made.length} new ${what.noun}s ${describe} appeared meanwhile (ids ${ids.join(", ")}) and the provider cannot tell which this request made: delete the ones you do not want, or adopt one with adoptId, then run pulumi up again`,
        failure === undefined ? undefined : { cause: failure },
        ids,
      );
    }
    if (ids[0] !== undefined) claimed.add(ids[0]);
    return made[0];
  }

  /** Rule 6: what a dead host's create of the same request made. */
  async takeOver(lookup: Lookup<L>, digest: string): Promise<L | undefined> {
    const { what, session } = this.recipe;
    const { journal } = session;
    const orphans = journal.orphans(digest);
    if (orphans.length === 0) return undefined;
    const cause = causeOf(what, undefined);
    const { live } = await this.listOf(
      lookup,
      (fetch) => fetch(),
      (why) =>
        `${cause}, and looking for what it made failed (${why}); nothing was sent: run pulumi up again`,
    );
    // Another create's claims: the orphan's own entry is not among them (its host is gone).
    const claimed = journal.claimedIds(what.kind);
    for (const orphan of orphans) {
      const before = new Set(orphan.before);
      const made = (id: number) =>
        !claimed.has(id) && (orphan.id === undefined ? !before.has(id) : id === orphan.id);
      const one = this.claimOne(lookup, live, made, cause);
      journal.forget(orphan);
      if (one !== undefined) return one;
    }
    return undefined;
  }

  /** Rule 1: a list of moments ago serves, as what this process made since, it claimed. */
  async idsBefore(lookup: Lookup<L>): Promise<ReadonlySet<number>> {
    const { what, session } = this.recipe;
    const { ids } = await this.listOf(
      lookup,
      (fetch) => session.lists.recent(lookup.key, fetch),
      (why) =>
        `reading the ${what.noun}s before sending the create failed (${why}); nothing was sent`,
    );
    return ids;
  }

  /**
   * The kind's list through `share`, with its ids, or a failure saying `failed(why)`; rule 1's
   * twice refused.
   */
  async listOf(
    lookup: Lookup<L>,
    share: (fetch: () => Promise<readonly L[]>) => Promise<readonly L[]>,
    failed: (why: string) => string,
    failure?: unknown,
  ): Promise<{ live: readonly L[]; ids: ReadonlySet<number> }> {
    try {
      const live = await share(() => lookup.read({ maxRetries: LOOKUP_MAX_RETRIES }));
      const ids = new Set<number>();
      for (const item of live) {
        const id = lookup.idOf(item);
        if (ids.has(id)) {
          throw new Error(
            `the list shows ${this.recipe.what.noun} ${id} twice, as a service does that ignores the page parameter`,
          );
        }
        ids.add(id);
      }
      return { live, ids };
    } catch (err) {
      throw new CreateFailedError(failed(messageOf(err)), { cause: failure ?? err });
    }
  }

  /** Rule 5: sends once, recording when, the request in flight and the id its answer names. */
  track(): Promise<A> {
    const { recipe, record } = this;
    this.sentAt = Date.now();
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
   * Rule 2, once sends in flight answered (they claim their ids). `failure` is `undefined` for an
   * answer without id. Looks twice: the service may still be working on a timed-out request.
   */
  async findMade(lookup: Lookup<L>, failure: unknown): Promise<L | undefined> {
    const { recipe, record, before } = this;
    const { what, describe, session } = recipe;
    const { lists } = session;
    // Any list asked for after the request settled shows what it made: a wave shares one.
    const settled = lists.mark();
    const cause = failure === undefined ? undefined : causeOf(what, failure);
    const named = cause ?? "the create's answer named no id";
    return record.exclusive(async () => {
      await Promise.allSettled([...record.inFlight]);
      for (let look = 1; look <= 2; look++) {
        if (look > 1) await sleep(recipe.settleMs ?? DEFAULT_SETTLE_MS);
        const mark = look > 1 ? lists.mark() : settled;
        const { live } = await this.listOf(
          lookup,
          (fetch) => lists.since(lookup.key, fetch, mark),
          (why) =>
            `${cause ?? "the create succeeded"}; looking for the ${what.noun} it ${cause === undefined ? "made" : "may have made"} failed too (${why}): look for ${aNoun(what)} ${describe}, then delete it or adopt it with adoptId before running pulumi up again`,
          failure,
        );
        const one = this.claimOne(lookup, live, (id) => !before.has(id), named, failure);
        if (one !== undefined) return one;
      }
      return undefined;
    });
  }

  /** Rule 7. */
  async discard(id: number, failure: unknown): Promise<void> {
    const { what } = this.recipe;
    try {
      await this.recipe.discard?.(id);
    } catch (err) {
      throw new CreateFailedError(
        `${causeOf(what, failure)}; the request made ${what.noun} ${id}, which is useless without the lost answer, and deleting it failed (${messageOf(err)}): delete ${what.noun} ${id}, then run pulumi up again`,
        { cause: err },
        [id],
      );
    }
    this.discarded.push(id);
  }
}
