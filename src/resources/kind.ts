/**
 * A kind is one definition ({@link KindDefinition}); one builder ({@link kindOperations}) turns it
 * into the operations both flavours serve, and a kind overrides only what its API forces. What
 * each operation does is in ./README.md ("The implementation: one definition per kind").
 */
import type { z } from "zod";
import type { CloudInfraClient } from "../api/client";
import { ConfigurationError, ConflictError, NotFoundError } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { type Adoption, adopt, guardAdoptedReplacement, type Mismatch } from "./adopt";
import {
  aNoun,
  checkResultOf,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  type FieldRule,
  failuresFromZod,
  type KindNames,
  type KindOperations,
  labelOf,
  OperationError,
  type OperationLimits,
  operationError,
  type Props,
  partialCreateError,
  unlessNotFound,
} from "./common";
import { type NamedObject, nameTakenError } from "./conflict";
import { type CreateOutcome, createExactlyOnce } from "./create";
import { resourceIdOf } from "./ids";
import type { InputRules } from "./input-rules";
import type { ProviderSession } from "./session";

/** How `diff` and the match treat each input; a missing input is a compile error. */
export type FieldTable<Inputs> = Record<Exclude<keyof Inputs, "adoptId">, FieldRule>;

/** A kind's API list (every page) and its key in the shared-list cache: one key per API list. */
export interface KindList<Live> {
  key: string;
  read(options?: RequestOptions): Promise<readonly Live[]>;
}

/** The calls a kind makes to the service. */
export interface KindApi<Live, Request, Answer> {
  idOf(live: Live): number;
  /** Every live object, for reads and create lookups; left out when the API cannot list the kind. */
  list?(client: CloudInfraClient): KindList<Live>;
  /** One live object (adoption reads it); without it, the object is found in the list. */
  get?(client: CloudInfraClient, id: number): Promise<Live>;
  /** `options`: the create's deadline, when it has one ({@link KindDefinition.createDeadline}). */
  create(client: CloudInfraClient, request: Request, options?: RequestOptions): Promise<Answer>;
  /** The id the creation answer names, or `undefined` when it names none (then it is found). */
  idInAnswer(answer: Answer): number | undefined;
  /** The change of an existing object to `request`; left out when every change replaces. */
  update?(client: CloudInfraClient, id: number | string, request: Request): Promise<unknown>;
  /** The delete (`props`: the stored state); a 404 is success. */
  delete(
    session: ProviderSession,
    id: string,
    props: Props,
    limits?: OperationLimits,
  ): Promise<unknown>;
}

/**
 * One kind: its inputs, rules, field table, wire mapping, API calls and whatever its API forces.
 * `Resolved` is the inputs with what the service must tell before a write (a role's permission
 * ids); it is the inputs themselves for most kinds.
 */
export interface KindDefinition<
  Inputs extends object,
  Live,
  Request,
  Answer,
  Outputs extends object,
  Resolved extends Inputs = Inputs,
> {
  what: KindNames;
  /** The input schema: what `create` and `update` parse (`check` has normalised the inputs). */
  schema: z.ZodType<Inputs>;
  /** The kind's input rules (./input-rules.ts): what `check` validates and normalises. */
  rules: InputRules;
  /** How each input changes: which fields replace, what counts as equal. */
  fields: FieldTable<Inputs>;
  api: KindApi<Live, Request, Answer>;
  /** What must be asked of the service before a write (role permission ids). */
  resolve?(session: ProviderSession, inputs: Inputs): Promise<Resolved>;
  toApi(inputs: Resolved): Request;
  /**
   * Outputs of a live object. `known`: what the state or the request holds, for what the service
   * does not return (a key's comment, whether a tag's membership is managed).
   */
  fromApi?(live: Live, known: Props | undefined): Outputs;
  /**
   * The outputs of a write, from what was sent (and the creation answer); left out by a kind
   * whose outputs only the service knows (a key's fingerprint), which gives `created` and
   * overrides `update` and adoption's `converge`.
   */
  outputsFromInputs?(id: number, inputs: Resolved, answer?: Answer): Outputs;
  /** The inputs that would produce these outputs, as refresh stores them. */
  liveInputs?(outputs: Outputs): Props;
  /** Outputs of a live object as a read reports them, when more than `fromApi` (a role's catalogue). */
  readOutputs?(session: ProviderSession, live: Live, stored: Props | undefined): Promise<Outputs>;
  /**
   * The outputs of a create from its outcome, when not {@link outputsFromInputs} (a generated key,
   * a server once it runs); `ongoing` when the kind has a {@link createDeadline}.
   */
  created?(
    session: ProviderSession,
    made: CreateOutcome<Answer, Live>,
    r: Resolved,
    ongoing?: Ongoing,
  ): Promise<Outputs>;
  /**
   * The deadline of a create that goes on after its request (a server waits until it runs), from
   * the inputs and the engine's limits. The request's retries stop there, and the journal entry
   * stays open until `created` ends, so a host killed meanwhile leaves the object to the next
   * create (create.ts `closesLater`).
   */
  createDeadline?(inputs: Inputs, limits?: OperationLimits): Deadline;
  /** What a failed create's error adds (the plan ids after a refused `plan_id`); default nothing. */
  failureDetail?(session: ProviderSession, err: unknown): Promise<string>;
  /** Objects no create of ours can have made (a system role); never matched. */
  foreign?(live: Live): boolean;
  /** Create recovery beyond the default (../create.ts). */
  recovery?: {
    /** What the request asks for after the noun; default `named "<name>"`. */
    describe?(r: Resolved): string;
    /**
     * Deletes an object a lost answer made that is useless without it (a generated key), or, for
     * a `unique` kind, the holder a 409 names when it is what this create made (create.ts, rule 8).
     */
    discard?(session: ProviderSession, r: Resolved): ((id: number) => Promise<void>) | undefined;
    /** For a kind the API cannot list: advice, and the 409-names-the-holder rule (create.ts). */
    unlistable?(r: Resolved): string;
    /** The kind cannot be listed, but the service keeps its names unique (a user). */
    unique?: true;
    /** What identifies the request in the journal; default its body. */
    journalRequest?(r: Resolved): unknown;
  };
  /** The error for a 409 of a write; default: the object that holds the name ({@link nameTaken}). */
  taken?(session: ProviderSession, r: Resolved, err: ConflictError, self?: string): Promise<Error>;
  /** The error for a 409 of a delete; default the service's. */
  deleteConflict?(session: ProviderSession, id: string, err: ConflictError): Promise<Error>;
  /** A replacement must delete the old object first (the service holds the value once). */
  deleteBeforeReplace?(olds: Props, news: Props): boolean;
  /** How the kind adopts an existing object (`adoptId`); left out when it cannot. */
  adoption?: {
    read?(session: ProviderSession, id: number): Promise<Live | undefined>;
    mismatches?(live: Live, inputs: Inputs): Mismatch[];
    refusal?(live: Live): string | undefined;
    /** Default: an update when the live object does not match, then {@link outputsFromInputs}. */
    converge?(session: ProviderSession, live: Live, inputs: Inputs): Promise<Props>;
  };
}

/** When an operation's waits give up, and the setting to name when they do. */
export interface Deadline {
  deadlineAt: number;
  /** `timeouts.create (now 10m, the default)`. */
  timeoutSetting: string;
}

/** What `created` gets for a create that goes on after its request. */
export interface Ongoing {
  deadline: Deadline;
  /** The error that keeps the object made in the stack, with these outputs, for the next `up`. */
  kept(outputs: Props, err: unknown): Error;
}

/** Inputs or outputs as the property bag the host sees. */
function bag(value: object): Props {
  return { ...value };
}

/** The `name` of a property bag or of inputs, when it has one. */
export function nameIn(props: object): string | undefined {
  return "name" in props && typeof props.name === "string" ? props.name : undefined;
}

/** The inputs of a create or update, parsed again; a host that skipped `check` fails naming each field. */
export function parseInputs<Inputs>(schema: z.ZodType<Inputs>, props: Props, operation: string) {
  const { __provider: _provider, ...rest } = props;
  const parsed = schema.safeParse(rest);
  if (parsed.success) return parsed.data;
  const reasons = failuresFromZod(parsed.error).map((f) => f.reason);
  throw new Error(`cloudinfra: ${operation} failed: invalid inputs: ${reasons.join("; ")}`);
}

/** The live object that `match` accepts, from the session's shared list. */
export function findListed<Live>(
  session: ProviderSession,
  list: KindList<Live>,
  match: (live: Live) => boolean,
): Promise<Live | undefined> {
  return session.lists.find(list.key, () => list.read(), match);
}

/**
 * Whether a live object is what a request asks for (after a lost create answer, before an
 * adoption changes anything): `fromApi` of it equals the request's inputs in every field of the
 * table, by its rules, so a field added to the inputs is in the match too.
 */
export function matchesRequest<Inputs extends object, Live, Resolved extends Inputs>(
  def: KindDefinition<Inputs, Live, unknown, unknown, object, Resolved>,
  live: Live,
  r: Resolved,
): boolean {
  if (def.foreign?.(live) === true || def.fromApi === undefined) return false;
  const wanted = bag(r);
  const made: Record<string, FieldRule> = {};
  for (const [field, rule] of Object.entries<FieldRule>(def.fields)) {
    if (rule.afterCreate !== true) made[field] = rule;
  }
  return !diffInputs({ ...def.fromApi(live, wanted) }, wanted, made).changes;
}

/**
 * The error for a 409 on a name that must be unique: the object that holds it (a fresh read of
 * the kind's list), with its id and `adoptId` unless the stack manages it.
 */
export function nameTaken<Live extends NamedObject>(
  def: { what: KindNames; api: KindApi<Live, unknown, unknown> },
  session: ProviderSession,
  name: string,
  err: ConflictError,
  self?: string,
  more: Pick<Parameters<typeof nameTakenError<Live>>[2], "rule" | "detail" | "special"> = {},
): Promise<Error> {
  const list = def.api.list?.(session.client);
  return nameTakenError(def.what, err, {
    name,
    list: () => (list === undefined ? Promise.resolve([]) : list.read()),
    managed: (id) => session.stack.manages(def.what.kind, id),
    ...(self === undefined ? {} : { self }),
    ...more,
  });
}

/** The operations of a kind: the builder's, with the kind's own overrides. */
export function kindOperations<
  Inputs extends object,
  Live,
  Request,
  Answer,
  Outputs extends object,
  Resolved extends Inputs,
>(
  def: KindDefinition<Inputs, Live, Request, Answer, Outputs, Resolved>,
  overrides: Partial<KindOperations> = {},
): KindOperations {
  const { what, api } = def;
  const resolve = (session: ProviderSession, inputs: Inputs): Promise<Resolved> =>
    def.resolve === undefined ? Promise.resolve(inputs as Resolved) : def.resolve(session, inputs);
  const taken = (session: ProviderSession, r: Resolved, err: ConflictError, self?: string) => {
    if (def.taken !== undefined) return def.taken(session, r, err, self);
    const name = nameIn(r);
    const named = def as unknown as {
      what: KindNames;
      api: KindApi<NamedObject, unknown, unknown>;
    };
    return name === undefined ? Promise.resolve(err) : nameTaken(named, session, name, err, self);
  };
  /** `write`, with a 409 explained by {@link taken}. */
  const explained = async <T>(
    session: ProviderSession,
    r: Resolved,
    write: () => Promise<T>,
    self?: string,
  ): Promise<T> => {
    try {
      return await write();
    } catch (err) {
      throw err instanceof ConflictError ? await taken(session, r, err, self) : err;
    }
  };
  const outputs = (id: number, r: Resolved, answer?: Answer): Outputs => {
    if (def.outputsFromInputs === undefined) {
      throw new Error(`the outputs of a ${what.kind} come from the service, not from its inputs`);
    }
    return def.outputsFromInputs(id, r, answer);
  };
  const find = (session: ProviderSession, id: number): Promise<Live | undefined> => {
    const list = api.list?.(session.client);
    if (list === undefined) throw new Error(`the API cannot list ${what.noun}s`);
    return findListed(session, list, (l) => api.idOf(l) === id);
  };

  const adoption = (session: ProviderSession): Adoption<Inputs, Live> => {
    const own = def.adoption ?? {};
    return {
      what,
      read: (id) =>
        own.read !== undefined
          ? own.read(session, id)
          : api.get !== undefined
            ? unlessNotFound(api.get(session.client, id))
            : find(session, id),
      ...(own.mismatches === undefined ? {} : { mismatches: own.mismatches }),
      ...(own.refusal === undefined ? {} : { refusal: own.refusal }),
      async converge(live, inputs) {
        if (own.converge !== undefined) return own.converge(session, live, inputs);
        const r = await resolve(session, inputs);
        const id = api.idOf(live);
        if (!matchesRequest(def, live, r) && api.update !== undefined) {
          const update = api.update;
          await explained(session, r, () => update(session.client, id, def.toApi(r)), String(id));
        }
        return bag(outputs(id, r));
      },
    };
  };

  /**
   * Creates the object exactly once (./create.ts), then its outputs. With a `deadline` the create
   * goes on after its request: the journal entry stays open until `created` ends (`closesLater`),
   * and a failure of `created` after the object exists keeps it in the stack (`kept`).
   */
  const createNew = async (
    session: ProviderSession,
    r: Resolved,
    deadline: Deadline | undefined,
    kept: (id: number) => Ongoing["kept"],
  ) => {
    const { client } = session;
    const list = api.list?.(client);
    const request = def.toApi(r);
    const recovery = def.recovery ?? {};
    const discard = recovery.discard?.(session, r);
    const unlistable = recovery.unlistable?.(r);
    const made = await explained(session, r, () =>
      createExactlyOnce({
        what,
        describe: recovery.describe?.(r) ?? `named ${JSON.stringify(nameIn(r) ?? "")}`,
        session,
        lookup:
          list === undefined
            ? undefined
            : { ...list, idOf: api.idOf, matches: (l) => matchesRequest(def, l, r) },
        ...(unlistable === undefined ? {} : { unlistable }),
        ...(discard === undefined ? {} : { discard }),
        ...(recovery.unique === true ? { unique: true } : {}),
        // A 429 is waited out within the create's own deadline.
        send: () => api.create(client, request, deadline && { deadlineAt: deadline.deadlineAt }),
        idInAnswer: api.idInAnswer,
        request: recovery.journalRequest?.(r) ?? request,
        ...(deadline === undefined ? {} : { closesLater: true }),
      }),
    );
    const ongoing = deadline && { deadline, kept: kept(made.id) };
    try {
      const outs = def.created?.(session, made, r, ongoing) ?? outputs(made.id, r, made.answer);
      return { id: String(made.id), outs: bag(await outs) };
    } finally {
      // Returned to the engine either way, with the id: no later create may take it over.
      if (ongoing !== undefined) made.close();
    }
  };

  const operations: KindOperations = {
    async check(_session, _olds, news) {
      return checkResultOf(def.rules(news));
    },

    async diff(_session, id, olds, news) {
      const result = diffInputs(olds, news, def.fields);
      const replacing = (result.replaces?.length ?? 0) > 0;
      const first = replacing && def.deleteBeforeReplace?.(olds, news) === true;
      return guardAdoptedReplacement(what, id, news, { ...result, deleteBeforeReplace: first });
    },

    async create(session, props, limits) {
      const operation = describeOperation("creating", what.kind, nameIn(props));
      const inputs = parseInputs(def.schema, props, operation);
      const adoptId = (inputs as { adoptId?: number }).adoptId;
      if (adoptId !== undefined && def.adoption !== undefined) {
        return adopt(adoption(session), inputs, adoptId);
      }
      const deadline = def.createDeadline?.(inputs, limits);
      const kept = (id: number) => (outs: Props, err: unknown) =>
        partialCreateError(operation, String(id), outs, props, err);
      try {
        return await createNew(session, await resolve(session, inputs), deadline, kept);
      } catch (err) {
        // A provider with no endpoint or key: the configuration's problem, said as it is; a
        // partial create says its operation already.
        if (err instanceof ConfigurationError || err instanceof OperationError) throw err;
        throw operationError(operation, err, (await def.failureDetail?.(session, err)) ?? "");
      }
    },
    async read(session, id, props) {
      const operation = describeOperation("reading", what.kind, labelOf(props, id));
      const { fromApi, liveInputs } = def;
      if (fromApi === undefined || liveInputs === undefined) {
        throw operationError(operation, new Error(`the API cannot read ${what.noun}s`));
      }
      let outs: Outputs;
      try {
        const live = await find(session, resourceIdOf(id, `${aNoun(what)} id`));
        if (live === undefined) return {};
        outs = await (def.readOutputs?.(session, live, props) ?? fromApi(live, props));
      } catch (err) {
        throw operationError(operation, err);
      }
      return { id, props: { ...outs }, inputs: liveInputs(outs) };
    },

    async update(session, id, _olds, news) {
      const operation = describeOperation("updating", what.kind, nameIn(news) ?? id);
      const inputs = parseInputs(def.schema, news, operation);
      if (api.update === undefined) {
        throw operationError(operation, new Error(`a ${what.kind} cannot change in place`));
      }
      const update = api.update;
      let r: Resolved | undefined;
      try {
        r = await resolve(session, inputs);
        const request = def.toApi(r);
        await explained(session, r, () => update(session.client, id, request), id);
        return { outs: bag(outputs(Number(id), r)) };
      } catch (err) {
        if (err instanceof NotFoundError && r !== undefined) {
          throw deletedOutsidePulumiError(operation, what.noun, id, err);
        }
        throw operationError(operation, err);
      }
    },

    async delete(session, id, props, limits) {
      try {
        await api.delete(session, id, props, limits);
      } catch (err) {
        if (err instanceof NotFoundError) return;
        const shown =
          err instanceof ConflictError && def.deleteConflict !== undefined
            ? await def.deleteConflict(session, id, err)
            : err;
        throw operationError(describeOperation("deleting", what.kind, labelOf(props, id)), shown);
      }
    },
  };

  return { ...operations, ...overrides };
}
