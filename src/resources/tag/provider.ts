/**
 * The Tag implementation. There is no endpoint to read one tag, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); every write invalidates it.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, isAmbiguousFailure, NotFoundError } from "../../api/errors";
import type { Tag } from "../../api/schemas/tags";
import { type AdoptedKind, describeAdoption, findAdoptee, guardAdoptedReplacement } from "../adopt";
import {
  checkInputs,
  describeOperation,
  diffInputs,
  labelOf,
  operationError,
  parseChecked,
  type ResourceImplementation,
} from "../common";
import { apiClient } from "../session";
import { findInSharedList, writeInvalidating } from "../shared-list";
import {
  fromApi,
  liveInputs,
  outputsFromInputs,
  TAG_FIELDS,
  type TagInputs,
  TagInputsSchema,
  toApi,
} from "./model";

const LIST = "tags";
const TAG: AdoptedKind = { kind: "Tag", noun: "tag" };

/** The tag `match` accepts; "none" only from a list asked for after this call (see findInSharedList). */
function findTag(client: CloudInfraClient, match: (tag: Tag) => boolean): Promise<Tag | undefined> {
  return findInSharedList(client, LIST, () => client.tags.list(), match);
}

/** The 409 says only that the name is taken; the user needs to know by which tag. */
async function nameTakenError(
  client: CloudInfraClient,
  name: string,
  operation: string,
  err: ConflictError,
): Promise<Error> {
  const existing = await findTag(client, (t) => t.name === name).catch(() => undefined);
  const which = existing === undefined ? "" : ` (tag id ${existing.id})`;
  return operationError(
    operation,
    new Error(
      `a tag named ${JSON.stringify(name)} already exists${which}; tag names are unique in an account: choose another name, or delete or rename the existing tag (${err.message})`,
      { cause: err },
    ),
  );
}

/**
 * `create` with `adoptId`: finds the tag and updates it in place when its name, colour, data or
 * (when the program lists it) membership differ. Nothing about a tag needs a replacement.
 */
async function adoptTag(tag: TagInputs, adoptId: number) {
  const operation = describeAdoption(TAG, tag.name, adoptId);
  const client = apiClient();
  const live = await findAdoptee(operation, TAG, adoptId, () =>
    findTag(client, (t) => t.id === adoptId),
  );
  const current = fromApi(live, tag.serverIds !== undefined);
  if (diffInputs({ ...current }, { ...tag }, TAG_FIELDS).changes) {
    try {
      await writeInvalidating(client, LIST, () => client.tags.update(adoptId, toApi(tag)));
    } catch (err) {
      if (err instanceof ConflictError)
        throw await nameTakenError(client, tag.name, operation, err);
      throw operationError(operation, err);
    }
  }
  return { id: String(adoptId), outs: { ...outputsFromInputs(adoptId, tag) } };
}

export const implementation = {
  async check(_olds, news) {
    return checkInputs(TagInputsSchema, news);
  },

  async diff(id, olds, news) {
    return guardAdoptedReplacement(TAG, id, news, diffInputs(olds, news, TAG_FIELDS));
  },

  async create(inputs) {
    const tag = parseChecked(TagInputsSchema, inputs);
    if (tag.adoptId !== undefined) return adoptTag(tag, tag.adoptId);
    const operation = describeOperation("creating", "Tag", tag.name);
    const client = apiClient();
    try {
      const created = await writeInvalidating(client, LIST, () => client.tags.create(toApi(tag)));
      return { id: String(created.id), outs: { ...outputsFromInputs(created.id, tag) } };
    } catch (err) {
      if (err instanceof ConflictError)
        throw await nameTakenError(client, tag.name, operation, err);
      if (!isAmbiguousFailure(err)) throw operationError(operation, err);
      // The answer was lost: names are unique, so a tag with ours is the one that request made.
      const made = await findTag(client, (t) => t.name === tag.name).catch(() => undefined);
      if (made === undefined) throw operationError(operation, err);
      try {
        await writeInvalidating(client, LIST, () => client.tags.update(made.id, toApi(tag)));
      } catch (retryErr) {
        throw operationError(operation, retryErr);
      }
      return { id: String(made.id), outs: { ...outputsFromInputs(made.id, tag) } };
    }
  },

  async read(id, props) {
    const client = apiClient();
    let tag: Tag | undefined;
    try {
      tag = await findTag(client, (t) => String(t.id) === id);
    } catch (err) {
      throw operationError(describeOperation("reading", "Tag", id), err);
    }
    if (tag === undefined) return {};
    // Membership stays unmanaged unless the stored state says the program manages it. A lookup
    // (`Tag.get`) has no stored outputs at all, only `__provider`: it reports the membership.
    const lookup =
      props === undefined || (props["tagId"] === undefined && props["name"] === undefined);
    const managesServers = lookup || Array.isArray(props["serverIds"]);
    const outs = fromApi(tag, managesServers);
    return { id, props: { ...outs }, inputs: liveInputs(outs) };
  },

  async update(id, _olds, news) {
    const tag = parseChecked(TagInputsSchema, news);
    const operation = describeOperation("updating", "Tag", tag.name);
    const client = apiClient();
    try {
      await writeInvalidating(client, LIST, () => client.tags.update(id, toApi(tag)));
    } catch (err) {
      if (err instanceof ConflictError)
        throw await nameTakenError(client, tag.name, operation, err);
      throw operationError(operation, err);
    }
    return { outs: { ...outputsFromInputs(Number(id), tag) } };
  },

  async delete(id, props) {
    const client = apiClient();
    try {
      await writeInvalidating(client, LIST, () => client.tags.delete(id));
    } catch (err) {
      if (err instanceof NotFoundError) return;
      const label = labelOf(props, id);
      throw operationError(describeOperation("deleting", "Tag", label), err);
    }
  },
} satisfies ResourceImplementation;
