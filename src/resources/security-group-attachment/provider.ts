/** Read through the group list; detaching a pair already apart (or gone) succeeds. */
import type { CloudInfraClient } from "../../api/client";
import { NotFoundError } from "../../api/errors";
import type { SecurityGroup } from "../../api/schemas/firewall";
import { describeOperation, operationError, unlessNotFound } from "../common";
import { type KindDefinition, kindOperations, parseInputs } from "../kind";
import { groupList } from "../security-group/provider";
import * as model from "./model";

const KIND = "SecurityGroupAttachment";

/** A 404 on attach: which of the group and the server is missing (the 404 when that is unknown). */
async function missingSide(
  client: CloudInfraClient,
  pair: model.AttachmentInputs,
  err: unknown,
): Promise<unknown> {
  if (!(err instanceof NotFoundError)) return err;
  const group = await unlessNotFound(client.firewall.get(pair.securityGroupId)).catch(() => null);
  if (group === null) return err;
  const missing =
    group === undefined ? `security group ${pair.securityGroupId}` : `server ${pair.serverId}`;
  return new Error(`${missing} does not exist (${err.message})`, { cause: err });
}

/** The pair itself: no name, no list, no id of its own. */
export const definition: KindDefinition<
  model.AttachmentInputs,
  SecurityGroup,
  model.AttachmentInputs,
  unknown,
  model.AttachmentInputs
> = {
  what: { kind: KIND, noun: "security group attachment" },
  schema: model.AttachmentInputsSchema,
  fields: model.ATTACHMENT_FIELDS,
  api: {
    idOf: (group) => group.id,
    create: (client, pair) => client.firewall.attachServer(pair.securityGroupId, pair.serverId),
    idInAnswer: () => undefined,
    delete: async (session, id) => {
      const pair = model.parseAttachmentId(id);
      if (pair !== undefined) {
        await session.client.firewall.detachServer(pair.securityGroupId, pair.serverId);
      }
    },
  },
  toApi: (pair) => pair,
};

export const operations = kindOperations(definition, {
  async create(session, inputs) {
    const pair = parseInputs(model.AttachmentInputsSchema, inputs, `creating ${KIND}`);
    const id = model.attachmentId(pair);
    const operation = describeOperation("creating", KIND, id);
    try {
      await definition.api.create(session.client, pair);
      return { id, outs: { ...pair } };
    } catch (err) {
      throw operationError(operation, await missingSide(session.client, pair, err));
    }
  },

  async read(session, id) {
    try {
      const pair = model.parseAttachmentId(id);
      if (pair === undefined) {
        throw new Error(
          'expected an id of the form "<securityGroupId>/<serverId>", such as "12/34"',
        );
      }
      const { key, read } = groupList(session.client);
      const attached = (g: SecurityGroup) =>
        g.id === pair.securityGroupId && g.servers.some((s) => s.id === pair.serverId);
      if ((await session.lists.find(key, read, attached)) === undefined) return {};
      return { id: model.attachmentId(pair), props: { ...pair }, inputs: { ...pair } };
    } catch (err) {
      throw operationError(describeOperation("reading", KIND, id), err);
    }
  },
});
