/**
 * The operations of a named object (Tag, SecurityGroup, Role, SshKey, User), written once: `check`
 * from the kind's schema, `diff` from its field table, a create through the toolkit, a write whose
 * 409 is explained by the object that holds the name, a delete for which a 404 is success, and a
 * read that finds the object in the kind's shared list. Each kind configures them with its schema,
 * fields, client calls and lookup, and keeps in its own provider only what is its own.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { CloudInfraClient } from "../api/client";
import { ConflictError, NotFoundError } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { type Adoption, adopt, guardAdoptedReplacement } from "./adopt";
import {
  checkResultOf,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  type FieldRule,
  type KindNames,
  type KindOperations,
  labelOf,
  operationError,
  type Props,
  parseChecked,
} from "./common";
import type { NamedObject } from "./conflict";
import { createExactlyOnce } from "./create";
import type { InputRules } from "./input-rules";
import type { ProviderSession } from "./session";

/** A kind's API list (every page) and its key in the shared-list cache: one key per API list. */
export interface KindList<Live> {
  key: string;
  read(options?: RequestOptions): Promise<readonly Live[]>;
}

/** The object of `list` that `match` accepts; "none" only from a list asked for after this call (see SharedLists.find). */
export function findListed<Live>(
  session: ProviderSession,
  list: KindList<Live>,
  match: (live: Live) => boolean,
): Promise<Live | undefined> {
  return session.lists.find(list.key, () => list.read(), match);
}

/** `check`: the inputs validated and normalised by the kind's input rules (../input-rules.ts). */
export function rulesCheck(rules: InputRules): KindOperations["check"] {
  return async (_session, _olds, news) => checkResultOf(rules(news));
}

/** `diff` from the kind's field table; a replacement never adopts the object it replaces. */
export function fieldDiff(
  what: KindNames,
  fields: Record<string, FieldRule>,
): KindOperations["diff"] {
  return async (_session, id, olds, news) =>
    guardAdoptedReplacement(what, id, news, diffInputs(olds, news, fields));
}

/** What a 409 of a write means for the kind: the error to show instead (naming the holder). */
export type ConflictExplanation = (err: ConflictError) => Promise<Error>;

/** `write`, with a 409 replaced by `explain`'s error; any other failure passes unchanged. */
export async function explainingConflict<T>(
  write: () => Promise<T>,
  explain: ConflictExplanation,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ConflictError) throw await explain(err);
    throw err;
  }
}

/**
 * Runs `write` as `operation` (`updating Tag "web"`): a 409 is explained by `conflict`, a 404 of
 * the object the write needs (`gone`) says that it was deleted outside Pulumi and how to recover,
 * and every failure reads `cloudinfra: <operation> failed: ...`.
 */
export async function performing<T>(
  operation: string,
  write: () => Promise<T>,
  on: { conflict?: ConflictExplanation; gone?: { what: KindNames; id: string } } = {},
): Promise<T> {
  const { conflict, gone } = on;
  try {
    return await (conflict === undefined ? write() : explainingConflict(write, conflict));
  } catch (err) {
    if (err instanceof NotFoundError && gone !== undefined) {
      throw deletedOutsidePulumiError(operation, gone.what.noun, gone.id, err);
    }
    throw operationError(operation, err);
  }
}

/**
 * `delete`: `remove` sends it; an object already gone (404) is success. A 409 is explained by
 * `conflict` when the kind has something to say about it (a system role).
 */
export async function deleteUnlessGone(
  what: KindNames,
  id: string,
  props: Props,
  remove: () => Promise<unknown>,
  conflict?: ConflictExplanation,
): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (err instanceof NotFoundError) return;
    const shown =
      err instanceof ConflictError && conflict !== undefined ? await conflict(err) : err;
    throw operationError(describeOperation("deleting", what.kind, labelOf(props, id)), shown);
  }
}

/**
 * `read` of the object `find` finds (in the kind's shared list): none drops the resource from the
 * state; `outputs` maps the live object, and refresh stores `liveInputs` of them as the inputs.
 */
export async function readFound<Live, Outputs extends object>(
  operation: string,
  id: string,
  find: () => Promise<Live | undefined>,
  outputs: (live: Live) => Outputs | Promise<Outputs>,
  liveInputs: (outputs: Outputs) => Props,
): Promise<pulumi.dynamic.ReadResult> {
  let outs: Outputs;
  try {
    const live = await find();
    if (live === undefined) return {};
    outs = await outputs(live);
  } catch (err) {
    throw operationError(operation, err);
  }
  return { id, props: { ...outs }, inputs: liveInputs(outs) };
}

/**
 * A kind of object whose name is unique in an account and that is found in its list (Tag,
 * SecurityGroup, Role): how to list, create and change one, and what a 409 on its name means.
 */
export interface NamedKind<Live extends NamedObject, Request, Answer> {
  what: KindNames;
  list(client: CloudInfraClient): KindList<Live>;
  create(client: CloudInfraClient, request: Request): Promise<Answer>;
  /** The id the creation answer names, or `undefined` when it names none (then it is found). */
  idInAnswer(answer: Answer): number | undefined;
  update(client: CloudInfraClient, id: number | string, request: Request): Promise<unknown>;
  /** The error for a 409 on `name`: the object holding it; `self` is the object being changed. */
  nameTaken(
    session: ProviderSession,
    name: string,
    err: ConflictError,
    self?: string,
  ): Promise<Error>;
}

/** The object of the kind that `match` accepts, from the session's shared list. */
export function findNamed<Live extends NamedObject, Request, Answer>(
  session: ProviderSession,
  kind: NamedKind<Live, Request, Answer>,
  match: (live: Live) => boolean,
): Promise<Live | undefined> {
  return findListed(session, kind.list(session.client), match);
}

/**
 * Creates an object named `name` exactly once (../create.ts) and returns its id; `matches` tells
 * whether a new live object of that name is what `request` asks for. A 409 names the holder.
 */
export function createNamed<Live extends NamedObject, Request, Answer>(
  session: ProviderSession,
  kind: NamedKind<Live, Request, Answer>,
  name: string,
  request: Request,
  matches: (live: Live) => boolean,
): Promise<number> {
  const { what } = kind;
  const client = session.client;
  return performing(
    describeOperation("creating", what.kind, name),
    async () => {
      const made = await createExactlyOnce({
        what,
        describe: `named ${JSON.stringify(name)}`,
        session,
        lookup: {
          ...kind.list(client),
          idOf: (l) => l.id,
          matches: (l) => l.name === name && matches(l),
        },
        send: () => kind.create(client, request),
        idInAnswer: (answer) => kind.idInAnswer(answer),
        request,
      });
      return made.id;
    },
    { conflict: (err) => kind.nameTaken(session, name, err) },
  );
}

/** `update` of object `id`, now named `name`: a 409 names the holder, a 404 says it is gone. */
export function updateNamed<Live extends NamedObject, Request, Answer>(
  session: ProviderSession,
  kind: NamedKind<Live, Request, Answer>,
  id: string,
  name: string,
  request: Request,
): Promise<unknown> {
  const { what } = kind;
  return performing(
    describeOperation("updating", what.kind, name),
    () => kind.update(session.client, id, request),
    { conflict: (err) => kind.nameTaken(session, name, err, id), gone: { what, id } },
  );
}

/** An adoption's change of the live object (adopt() names the operation): a 409 names the holder. */
export function convergeNamed<Live extends NamedObject, Request, Answer>(
  session: ProviderSession,
  kind: NamedKind<Live, Request, Answer>,
  live: Live,
  name: string,
  request: Request,
): Promise<unknown> {
  return explainingConflict(
    () => kind.update(session.client, live.id, request),
    (err) => kind.nameTaken(session, name, err, String(live.id)),
  );
}

/** What a named kind's model gives its standard operations. */
export interface NamedModel<Inputs extends NamedInputs, Live extends NamedObject, Request> {
  /** The input schema: what `create`/`update` parse. */
  schema: z.ZodObject & z.ZodType<Inputs>;
  /** The kind's input rules (../input-rules.ts): what `check` validates and normalises. */
  rules: InputRules;
  /** The field table `diff` compares. */
  fields: Record<string, FieldRule>;
  toApi(inputs: Inputs): Request;
  /** The outputs after a create or update, from what was sent. */
  outputsFromInputs(id: number, inputs: Inputs): object;
  /** Whether a new live object of the name is what the inputs ask for (its other fields). */
  matches(live: Live, inputs: Inputs): boolean;
  /** How the kind adopts an existing object (`adoptId`). */
  adoption(session: ProviderSession): Adoption<Inputs, Live>;
}

/** Inputs of a named kind: its name, and the id of an object to adopt instead of creating one. */
export interface NamedInputs {
  name: string;
  adoptId?: number | undefined;
}

/**
 * `check`, `diff`, `create` (or adopt) and `update` of a named kind whose model maps its inputs
 * to one request, for create and update alike (Tag, SecurityGroup).
 */
export function namedOperations<
  Inputs extends NamedInputs,
  Live extends NamedObject,
  Request,
  Answer,
>(
  kind: NamedKind<Live, Request, Answer>,
  model: NamedModel<Inputs, Live, Request>,
): Pick<KindOperations, "check" | "diff" | "create" | "update"> {
  return {
    check: rulesCheck(model.rules),
    diff: fieldDiff(kind.what, model.fields),
    async create(session, props) {
      const inputs = parseChecked(model.schema, props);
      if (inputs.adoptId !== undefined) {
        return adopt(model.adoption(session), inputs, inputs.adoptId);
      }
      const matches = (live: Live) => model.matches(live, inputs);
      const id = await createNamed(session, kind, inputs.name, model.toApi(inputs), matches);
      return { id: String(id), outs: { ...model.outputsFromInputs(id, inputs) } };
    },
    async update(session, id, _olds, news) {
      const inputs = parseChecked(model.schema, news);
      await updateNamed(session, kind, id, inputs.name, model.toApi(inputs));
      return { outs: { ...model.outputsFromInputs(Number(id), inputs) } };
    },
  };
}
