/** One definition per kind, one builder: ./README.md, "The implementation". */
import type { z } from "zod";
import type { CloudInfraClient } from "../api/client";
import { ConfigurationError, ConflictError, NotFoundError } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { definedOnly } from "../lib/defined";
import { sameName } from "../lib/names";
import { type Adoption, adopt, guardAdoptedReplacement, type Mismatch } from "./adopt";
import {
  aNoun,
  checkResultOf,
  describeOperation,
  diffInputs,
  type FieldRule,
  failuresOf,
  type KindNames,
  type KindOperations,
  nameIn,
  OperationError,
  type OperationLimits,
  operationError,
  type Props,
  partialCreateError,
  tableInputs,
  unlessNotFound,
} from "./common";
import { AlreadyExistsError } from "./conflict";
import { type CreateOutcome, createExactlyOnce } from "./create";
import { resourceIdOf } from "./ids";
import { INPUT_RULES } from "./input-rules";
import type { ResourceKind } from "./kinds";
import type { ProviderSession } from "./session";

export type FieldTable<Inputs> = Record<Exclude<keyof Inputs, "adoptId">, FieldRule>;

/** Every page; `key`: its shared list's (one per API list). */
export interface KindList<Live> {
  key: string;
  read(options?: RequestOptions): Promise<readonly Live[]>;
}

export interface KindApi<Live, Request, Answer> {
  idOf(live: Live): number;
  list?(client: CloudInfraClient): KindList<Live>;
  /** Without it, adoption finds the object in the list. */
  get?(client: CloudInfraClient, id: number): Promise<Live>;
  create(client: CloudInfraClient, request: Request, options?: RequestOptions): Promise<Answer>;
  /** `undefined` when the answer names no id: the new object is then found in the list. */
  idInAnswer(answer: Answer): number | undefined;
  update?(client: CloudInfraClient, id: number | string, request: Request): Promise<unknown>;
  /** `props`: the stored state. */
  delete(
    session: ProviderSession,
    id: string,
    props: Props,
    limits?: OperationLimits,
  ): Promise<unknown>;
}

/** `Resolved`: the inputs with what the service must tell before a write (a role's permissions). */
export interface KindDefinition<
  Inputs extends object,
  Live,
  Request,
  Answer,
  Outputs extends object,
  Resolved extends Inputs = Inputs,
> {
  /** `check` applies the kind's {@link INPUT_RULES}. */
  what: KindNames & { kind: ResourceKind };
  /** What `create` and `update` parse again (`check` has normalised the inputs). */
  schema: z.ZodType<Inputs>;
  fields: FieldTable<Inputs>;
  api: KindApi<Live, Request, Answer>;
  resolve?(session: ProviderSession, inputs: Inputs): Promise<Resolved>;
  toApi(inputs: Resolved): Complete<Request>;
  /** `known`: the state or request (a key's comment, whether a tag's servers are managed). */
  fromApi?(live: Live, known: Props | undefined): Outputs;
  /** Left out when only the service knows the outputs (a key). */
  outputsFromInputs?(id: number, inputs: Resolved, answer?: Answer): Outputs;
  liveInputs?(outputs: Outputs): Props;
  /** When a read needs more than `fromApi` (a role's catalogue). */
  readOutputs?(session: ProviderSession, live: Live, stored: Props | undefined): Promise<Outputs>;
  /** `ongoing` when the kind has a {@link createDeadline}. */
  created?(
    session: ProviderSession,
    made: CreateOutcome<Answer, Live>,
    r: Resolved,
    ongoing?: Ongoing,
  ): Promise<Outputs>;
  createDeadline?(inputs: Inputs, limits?: OperationLimits): Deadline;
  /** What a failed create's error adds (the plan ids after a refused `plan_id`). */
  failureDetail?(session: ProviderSession, err: unknown): Promise<string>;
  /** Objects no create of ours can have made (a system role). */
  foreign?(live: Live): boolean;
  /** Fields of `createExactlyOnce`'s recipe (../create.ts). */
  recovery?: {
    /** What the request asks for after the noun; default `named "<name>"`. */
    describe?(r: Resolved): string;
    discard?(session: ProviderSession, r: Resolved): ((id: number) => Promise<void>) | undefined;
    /** A kind the API cannot list (its names are unique): what to do where the journal is lost. */
    unlistable?(r: Resolved): string;
    /** What identifies the request in the journal; default its body. */
    journalRequest?(r: Resolved): unknown;
  };
  /** The error for a 409 of a write; default {@link nameTaken}. */
  taken?(session: ProviderSession, r: Resolved, err: ConflictError, self?: string): Promise<Error>;
  deleteConflict?(session: ProviderSession, id: string, err: ConflictError): Promise<Error>;
  deleteBeforeReplace?(olds: Props, news: Props): boolean;
  /** Left out when the kind cannot adopt (`adoptId`). */
  adoption?: {
    read?(session: ProviderSession, id: number): Promise<Live | undefined>;
    mismatches?(live: Live, inputs: Inputs): Mismatch[];
    refusal?(live: Live): string | undefined;
    /** Default: an update when the live object does not match, then {@link outputsFromInputs}. */
    converge?(session: ProviderSession, live: Live, inputs: Inputs): Promise<Props>;
  };
}

/** `R` with every optional key required (`undefined` allowed): a `toApi` cannot forget one. */
export type Complete<R> = { [K in keyof R]-?: undefined extends R[K] ? R[K] | undefined : R[K] };

/** What is sent for a `toApi` answer: its keys set to `undefined` left out. */
export function wireRequest<R>(request: Complete<R>): R {
  // Without its undefined keys a `Complete<R>` is an `R`, which the compiler cannot see.
  return definedOnly(request) as R;
}

export interface Deadline {
  deadlineAt: number;
  /** The setting to name when a wait gives up: `timeouts.create (now 10m, the default)`. */
  timeoutSetting: string;
}

export interface Ongoing {
  deadline: Deadline;
  /** The error that keeps the object made in the stack, with these outputs, for the next `up`. */
  kept(outputs: Props, err: unknown): Error;
}

function bag(value: object): Props {
  return { ...value };
}

/** The inputs of a create or update, parsed again; a host that skipped `check` fails naming each field. */
export function parseInputs<Inputs>(schema: z.ZodType<Inputs>, props: Props, operation: string) {
  const { __provider: _provider, ...rest } = props;
  const parsed = schema.safeParse(rest);
  if (parsed.success) return parsed.data;
  const reasons = failuresOf(parsed.error.issues).map((f) => f.reason);
  throw new Error(`cloudinfra: ${operation} failed: invalid inputs: ${reasons.join("; ")}`);
}

/** Derived from the field table, so a new input is in the match too. */
export function matchesRequest<Inputs extends object, Live, Resolved extends Inputs>(
  def: KindDefinition<Inputs, Live, unknown, unknown, object, Resolved>,
  live: Live,
  r: Resolved,
): boolean {
  if (def.foreign?.(live) === true || def.fromApi === undefined) return false;
  const wanted = bag(r);
  const rules = Object.entries<FieldRule>(def.fields).filter(([, rule]) => !rule.afterCreate);
  return !diffInputs({ ...def.fromApi(live, wanted) }, wanted, Object.fromEntries(rules)).changes;
}

/**
 * The error for a 409 on a name: the object that holds it, from a fresh read of the list; the 409
 * itself when the read fails or finds none. `a tag named "web" already exists (tag id 7); …:
 * choose another name, …, or … adopt it with adoptId: 7`; no adoption when another resource of the
 * stack manages it (stack-objects.ts): one object, two resources.
 */
export async function nameTaken<Live extends { id: number; name: string }>(
  { what, api }: { what: KindNames; api: KindApi<Live, unknown, unknown> },
  session: ProviderSession,
  name: string,
  err: ConflictError,
  self?: string,
  more: {
    /** What must be unique, when it is not just the name (letter case, say). */
    rule?: string;
    remedy?: string;
    /** What is unique instead of the name (a key's material): who holds it, said after the noun. */
    holder?: { holds(o: Live): boolean; holding: string };
    /** After its id: `, attached to server 6`. */
    detail?(existing: Live): string | undefined;
    /** The whole explanation instead (a system role). */
    special?(existing: Live): Error | undefined;
  } = {},
): Promise<Error> {
  const holds = more.holder?.holds ?? ((o) => sameName(o.name, name) && String(o.id) !== self);
  const lookup = async () => (await api.list?.(session.client).read())?.find(holds);
  const o = await lookup().catch(() => undefined);
  if (o === undefined) return err;
  const holding = more.holder?.holding ?? `named ${JSON.stringify(o.name)}`;
  const detail = more.detail?.(o) ?? "";
  const adoption = session.stack.manages(what.kind, o.id)
    ? `; another resource of this stack manages ${what.noun} ${o.id}, so it cannot be adopted`
    : `, or, if no resource of this stack manages it, adopt it with adoptId: ${o.id}`;
  const rule = more.rule ?? `${what.noun} names are unique in an account`;
  const remedy =
    more.remedy ?? `choose another name, or delete or rename the existing ${what.noun}`;
  return (
    more.special?.(o) ??
    new AlreadyExistsError(
      `${aNoun(what)} ${holding} already exists (${what.noun} id ${o.id}${detail}); ${rule}: ${remedy}${adoption} (${err.message})`,
      { cause: err },
    )
  );
}

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
  const { update } = api;
  const toWire = (r: Resolved) => wireRequest<Request>(def.toApi(r));
  const resolve = (session: ProviderSession, inputs: Inputs): Promise<Resolved> =>
    def.resolve?.(session, inputs) ?? Promise.resolve(inputs as Resolved);
  const named = def as unknown as Parameters<typeof nameTaken>[0];
  /** A 409 said by {@link KindDefinition.taken}, else as a name taken. */
  const explained = async <T>(
    session: ProviderSession,
    r: Resolved,
    write: () => Promise<T>,
    self?: string,
  ): Promise<T> =>
    write().catch(async (err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
      if (def.taken !== undefined) throw await def.taken(session, r, err, self);
      const name = nameIn(r);
      throw name === undefined ? err : await nameTaken(named, session, name, err, self);
    });
  const outputs = (id: number, r: Resolved, answer?: Answer): Outputs => {
    if (def.outputsFromInputs === undefined) {
      throw new Error(`the outputs of a ${what.kind} come from the service, not from its inputs`);
    }
    return def.outputsFromInputs(id, r, answer);
  };
  const find = (session: ProviderSession, id: number): Promise<Live | undefined> => {
    const list = api.list?.(session.client);
    if (list === undefined) throw new Error(`the API cannot list ${what.noun}s`);
    return session.lists.find(list.key, list.read, (l) => api.idOf(l) === id);
  };

  const adoption = (session: ProviderSession): Adoption<Inputs, Live> => {
    const own = def.adoption ?? {};
    return {
      ...own,
      what,
      read: (id) =>
        own.read?.(session, id) ??
        (api.get === undefined ? find(session, id) : unlessNotFound(api.get(session.client, id))),
      async converge(live, inputs) {
        if (own.converge !== undefined) return own.converge(session, live, inputs);
        const r = await resolve(session, inputs);
        const id = api.idOf(live);
        if (!matchesRequest(def, live, r) && update !== undefined) {
          await explained(session, r, () => update(session.client, id, toWire(r)), String(id));
        }
        return bag(outputs(id, r));
      },
    };
  };

  const createNew = (session: ProviderSession, r: Resolved, deadline: Deadline | undefined) => {
    const { client } = session;
    const list = api.list?.(client);
    const request = toWire(r);
    const recovery = def.recovery ?? {};
    return explained(session, r, () =>
      createExactlyOnce({
        what,
        describe: recovery.describe?.(r) ?? `named ${JSON.stringify(nameIn(r) ?? "")}`,
        session,
        lookup:
          list === undefined
            ? undefined
            : { ...list, idOf: api.idOf, matches: (l) => matchesRequest(def, l, r) },
        unlistable: recovery.unlistable?.(r),
        discard: recovery.discard?.(session, r),
        // A 429 is waited out within the create's own deadline.
        send: () => api.create(client, request, deadline && { deadlineAt: deadline.deadlineAt }),
        idInAnswer: api.idInAnswer,
        request: recovery.journalRequest?.(r) ?? request,
      }),
    );
  };

  const operations: KindOperations = {
    async check(_session, _olds, news) {
      return checkResultOf(INPUT_RULES[what.kind](news));
    },

    async diff(_session, id, olds, news) {
      const result = diffInputs(olds, news, def.fields);
      const first = result.replaces.length > 0 && def.deleteBeforeReplace?.(olds, news) === true;
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
      try {
        const r = await resolve(session, inputs);
        const made = await createNew(session, r, deadline);
        const kept = (outs: Props, err: unknown) =>
          partialCreateError(operation, String(made.id), outs, props, err);
        try {
          const ongoing = deadline && { deadline, kept };
          const outs = def.created?.(session, made, r, ongoing) ?? outputs(made.id, r, made.answer);
          return { id: String(made.id), outs: bag(await outs) };
        } finally {
          // Returned to the engine either way, with the id: no later create may take it over.
          made.close();
        }
      } catch (err) {
        // A missing endpoint or key is said as it is; a partial create names its operation.
        if (err instanceof ConfigurationError || err instanceof OperationError) throw err;
        throw operationError(operation, err, (await def.failureDetail?.(session, err)) ?? "");
      }
    },
    async read(session, id, props) {
      const operation = describeOperation("reading", what.kind, nameIn(props ?? {}) ?? id);
      const { fromApi, liveInputs = (outs) => tableInputs(outs, def.fields) } = def;
      try {
        if (fromApi === undefined) throw new Error(`the API cannot read ${what.noun}s`);
        const live = await find(session, resourceIdOf(id, `${aNoun(what)} id`));
        if (live === undefined) return {};
        const outs = await (def.readOutputs?.(session, live, props) ?? fromApi(live, props));
        return { id, props: { ...outs }, inputs: liveInputs(outs) };
      } catch (err) {
        throw operationError(operation, err);
      }
    },

    async update(session, id, _olds, news) {
      const operation = describeOperation("updating", what.kind, nameIn(news) ?? id);
      const inputs = parseInputs(def.schema, news, operation);
      let r: Resolved | undefined;
      try {
        if (update === undefined) throw new Error(`a ${what.kind} cannot change in place`);
        r = await resolve(session, inputs);
        const request = toWire(r);
        await explained(session, r, () => update(session.client, id, request), id);
        return { outs: bag(outputs(Number(id), r)) };
      } catch (err) {
        if (!(err instanceof NotFoundError) || r === undefined) {
          throw operationError(operation, err);
        }
        const gone = `${what.noun} ${id} no longer exists (deleted outside Pulumi); run \`pulumi refresh\` to drop it from the state, then \`pulumi up\` creates it again`;
        throw operationError(operation, new Error(`${gone} (${err.message})`, { cause: err }));
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
        throw operationError(describeOperation("deleting", what.kind, nameIn(props) ?? id), shown);
      }
    },
  };

  return { ...operations, ...overrides };
}
