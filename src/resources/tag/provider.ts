/** The Tag kind: no call reads one tag, so `read` finds it in the shared list (../shared-list.ts). */
import type { CreateTagRequest, Tag } from "../../api/schemas/tags";
import type { Props } from "../common";
import { INPUT_RULES } from "../input-rules";
import { type KindDefinition, kindOperations } from "../kind";
import {
  fromApi,
  liveInputs,
  outputsFromInputs,
  TAG_FIELDS,
  type TagInputs,
  TagInputsSchema,
  type TagOutputs,
  toApi,
} from "./model";

/** The state (or the request) lists `serverIds`, or it is a lookup (`Tag.get`: no outputs). */
function managesServers(known: Props | undefined): boolean {
  const lookup =
    known === undefined || (known["tagId"] === undefined && known["name"] === undefined);
  return lookup || Array.isArray(known["serverIds"]);
}

export const definition: KindDefinition<TagInputs, Tag, CreateTagRequest, Tag, TagOutputs> = {
  what: { kind: "Tag", noun: "tag" },
  schema: TagInputsSchema,
  rules: INPUT_RULES.Tag,
  fields: TAG_FIELDS,
  api: {
    idOf: (tag) => tag.id,
    list: (client) => ({ key: "tags", read: (options) => client.tags.list(options) }),
    create: (client, request) => client.tags.create(request),
    idInAnswer: (tag) => tag.id,
    update: (client, id, request) => client.tags.update(id, request),
    delete: (session, id) => session.client.tags.delete(id),
  },
  toApi,
  fromApi: (tag, known) => fromApi(tag, managesServers(known)),
  outputsFromInputs,
  liveInputs,
  adoption: {},
};

export const operations = kindOperations(definition);
