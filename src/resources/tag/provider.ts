import type { CreateTagRequest, Tag } from "../../api/schemas/tags";
import type { Props } from "../common";
import { type KindDefinition, kindOperations } from "../kind";
import * as model from "./model";

/** The state (or the request) lists `serverIds`, or it is a lookup (`Tag.get`: no outputs). */
function managesServers(known: Props = {}): boolean {
  const lookup = known["tagId"] === undefined && known["name"] === undefined;
  return lookup || Array.isArray(known["serverIds"]);
}

export const definition: KindDefinition<
  model.TagInputs,
  Tag,
  CreateTagRequest,
  Tag,
  model.TagOutputs
> = {
  what: { kind: "Tag", noun: "tag" },
  schema: model.TagInputsSchema,
  fields: model.TAG_FIELDS,
  api: {
    idOf: (tag) => tag.id,
    list: (client) => ({ key: "tags", read: (options) => client.tags.list(options) }),
    create: (client, request) => client.tags.create(request),
    idInAnswer: (tag) => tag.id,
    update: (client, id, request) => client.tags.update(id, request),
    delete: (session, id) => session.client.tags.delete(id),
  },
  toApi: model.toApi,
  fromApi: (tag, known) => model.fromApi(tag, managesServers(known)),
  outputsFromInputs: model.outputsFromInputs,
  adoption: {},
};

export const operations = kindOperations(definition);
