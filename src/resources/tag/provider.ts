/**
 * The Tag implementation. There is no endpoint to read one tag, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); a write through the client
 * makes the next read ask again.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, NotFoundError } from "../../api/errors";
import type { RequestOptions } from "../../api/http";
import type { Tag } from "../../api/schemas/tags";
import { type Adoption, adopt, guardAdoptedReplacement } from "../adopt";
import {
  checkInputs,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  type KindNames,
  type KindOperations,
  labelOf,
  operationError,
  parseChecked,
} from "../common";
import { nameTakenError } from "../conflict";
import { createExactlyOnce } from "../create";
import { onCurrentSession, type ProviderSession } from "../session";
import {
  fromApi,
  liveInputs,
  normaliseIds,
  outputsFromInputs,
  TAG_FIELDS,
  type TagInputs,
  TagInputsSchema,
  toApi,
} from "./model";

const TAG: KindNames = { kind: "Tag", noun: "tag" };

/** The tag list in the shared-list cache. */
function tagList(client: CloudInfraClient) {
  return { key: "tags", read: (options?: RequestOptions) => client.tags.list(options) };
}

/** The tag `match` accepts; "none" only from a list asked for after this call (see SharedLists.find). */
function findTag(session: ProviderSession, match: (tag: Tag) => boolean): Promise<Tag | undefined> {
  const list = tagList(session.client);
  return session.lists.find(list.key, () => list.read(), match);
}

/** The 409 says only that the name is taken; the user needs to know by which tag. */
function nameTaken(client: CloudInfraClient, name: string, err: ConflictError): Promise<Error> {
  return nameTakenError(TAG, err, { name, list: () => tagList(client).read() });
}

/** Whether a live tag is what these inputs make. */
function isTagFor(live: Tag, tag: TagInputs): boolean {
  const servers = normaliseIds(live.servers.map((s) => s.id));
  return (
    live.name === tag.name &&
    live.color.toLowerCase() === tag.color &&
    (live.data ?? "") === (tag.data ?? "") &&
    (tag.serverIds === undefined || servers.join() === tag.serverIds.join())
  );
}

/** Nothing about a tag needs a replacement: name, colour, data and membership change in place. */
const adoption = (session: ProviderSession): Adoption<TagInputs, Tag> => ({
  what: TAG,
  read: (id) => findTag(session, (t) => t.id === id),
  async converge(live, tag) {
    const client = session.client;
    const current = fromApi(live, tag.serverIds !== undefined);
    if (diffInputs({ ...current }, { ...tag }, TAG_FIELDS).changes) {
      try {
        await client.tags.update(live.id, toApi(tag));
      } catch (err) {
        if (err instanceof ConflictError) throw await nameTaken(client, tag.name, err);
        throw err;
      }
    }
    return { ...outputsFromInputs(live.id, tag) };
  },
});

export const operations = {
  async check(_session, _olds, news) {
    return checkInputs(TagInputsSchema, news);
  },

  async diff(_session, id, olds, news) {
    return guardAdoptedReplacement(TAG, id, news, diffInputs(olds, news, TAG_FIELDS));
  },

  async create(session, inputs) {
    const tag = parseChecked(TagInputsSchema, inputs);
    if (tag.adoptId !== undefined) return adopt(adoption(session), tag, tag.adoptId);
    const operation = describeOperation("creating", "Tag", tag.name);
    const client = session.client;
    try {
      const made = await createExactlyOnce({
        what: TAG,
        describe: `named ${JSON.stringify(tag.name)}`,
        session,
        lookup: { ...tagList(client), idOf: (t) => t.id, matches: (t) => isTagFor(t, tag) },
        send: () => client.tags.create(toApi(tag)),
        idInAnswer: (t) => t.id,
        journal: { journal: session.journal, request: toApi(tag) },
      });
      return { id: String(made.id), outs: { ...outputsFromInputs(made.id, tag) } };
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(client, tag.name, err));
      }
      throw operationError(operation, err);
    }
  },

  async read(session, id, props) {
    const _client = session.client;
    let tag: Tag | undefined;
    try {
      tag = await findTag(session, (t) => String(t.id) === id);
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

  async update(session, id, _olds, news) {
    const tag = parseChecked(TagInputsSchema, news);
    const operation = describeOperation("updating", "Tag", tag.name);
    const client = session.client;
    try {
      await client.tags.update(id, toApi(tag));
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(client, tag.name, err));
      }
      if (err instanceof NotFoundError) throw deletedOutsidePulumiError(operation, "tag", id, err);
      throw operationError(operation, err);
    }
    return { outs: { ...outputsFromInputs(Number(id), tag) } };
  },

  async delete(session, id, props) {
    const client = session.client;
    try {
      await client.tags.delete(id);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw operationError(describeOperation("deleting", "Tag", labelOf(props, id)), err);
    }
  },
} satisfies KindOperations;

/** {@link operations} on the session of the configuration the host was given. */
export const implementation = onCurrentSession(operations);
