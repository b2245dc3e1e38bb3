/**
 * The Tag implementation. There is no endpoint to read one tag, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); a write through the client
 * makes the next read ask again.
 */
import type { CreateTagRequest, Tag } from "../../api/schemas/tags";
import type { Adoption } from "../adopt";
import { describeOperation, diffInputs, type KindNames, type KindOperations } from "../common";
import { nameTakenError } from "../conflict";
import { INPUT_RULES } from "../input-rules";
import {
  convergeNamed,
  deleteUnlessGone,
  findNamed,
  type NamedKind,
  namedOperations,
  readFound,
} from "../named-kind";
import type { ProviderSession } from "../session";
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

/** Tags in the shared-list cache. A 409 says only that the name is taken: by which tag, then. */
const TAGS: NamedKind<Tag, CreateTagRequest, Tag> = {
  what: TAG,
  list: (client) => ({ key: "tags", read: (options) => client.tags.list(options) }),
  create: (client, request) => client.tags.create(request),
  idInAnswer: (tag) => tag.id,
  update: (client, id, request) => client.tags.update(id, request),
  nameTaken: (session, name, err) =>
    nameTakenError(TAG, err, {
      name,
      list: () => TAGS.list(session.client).read(),
      managed: (id) => session.stack.manages(TAG.kind, id),
    }),
};

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
  read: (id) => findNamed(session, TAGS, (t) => t.id === id),
  async converge(live, tag) {
    const current = fromApi(live, tag.serverIds !== undefined);
    if (diffInputs({ ...current }, { ...tag }, TAG_FIELDS).changes) {
      await convergeNamed(session, TAGS, live, tag.name, toApi(tag));
    }
    return { ...outputsFromInputs(live.id, tag) };
  },
});

export const operations = {
  ...namedOperations(TAGS, {
    schema: TagInputsSchema,
    rules: INPUT_RULES.Tag,
    fields: TAG_FIELDS,
    toApi,
    outputsFromInputs,
    matches: isTagFor,
    adoption,
  }),

  async read(session, id, props) {
    // Membership stays unmanaged unless the stored state says the program manages it. A lookup
    // (`Tag.get`) has no stored outputs at all, only `__provider`: it reports the membership.
    const lookup =
      props === undefined || (props["tagId"] === undefined && props["name"] === undefined);
    const managesServers = lookup || Array.isArray(props["serverIds"]);
    return readFound(
      describeOperation("reading", TAG.kind, id),
      id,
      () => findNamed(session, TAGS, (t) => String(t.id) === id),
      (tag) => fromApi(tag, managesServers),
      liveInputs,
    );
  },

  async delete(session, id, props) {
    await deleteUnlessGone(TAG, id, props, () => session.client.tags.delete(id));
  },
} satisfies KindOperations;
