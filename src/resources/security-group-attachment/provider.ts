/** Read through the group list; detaching a pair already apart (or gone) succeeds. */
import type { CloudInfraClient } from "../../api/client";
import { NotFoundError } from "../../api/errors";
import type { SecurityGroup } from "../../api/schemas/firewall";
import { describeOperation, operationError, type Props, unlessNotFound } from "../common";
import { INPUT_RULES } from "../input-rules";
import { type KindDefinition, kindOperations, parseInputs } from "../kind";
import { groupList } from "../security-group/provider";
import * as model from "./model";

const KIND = "SecurityGroupAttachment";

function pairOf(id: string, props: Props | undefined): model.AttachmentInputs | undefined {
  const fromId = model.parseAttachmentId(id);
  if (fromId !== undefined) return fromId;
  const fromProps = model.AttachmentInputsSchema.safeParse({
    securityGroupId: props?.["securityGroupId"],
    serverId: props?.["serverId"],
  });
  return fromProps.success ? fromProps.data : undefined;
}

/** A 404 on attach: say whether the group or the server is missing. */
async function missingError(
  client: CloudInfraClient,
  pair: model.AttachmentInputs,
  operation: string,
  err: NotFoundError,
): Promise<Error> {
  const group = await unlessNotFound(client.firewall.get(pair.securityGroupId)).catch(() => null);
  if (group === null) return operationError(operation, err);
  const what =
    group === undefined
      ? `security group ${pair.securityGroupId} does not exist`
      : `server ${pair.serverId} does not exist`;
  return operationError(operation, new Error(`${what} (${err.message})`, { cause: err }));
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
  rules: INPUT_RULES.SecurityGroupAttachment,
  fields: model.ATTACHMENT_FIELDS,
  api: {
    idOf: (group) => group.id,
    create: (client, pair) => client.firewall.attachServer(pair.securityGroupId, pair.serverId),
    idInAnswer: () => undefined,
    delete: async (session, id, props) => {
      const pair = pairOf(id, props);
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
    const client = session.client;
    try {
      await definition.api.create(client, pair);
    } catch (err) {
      if (err instanceof NotFoundError) throw await missingError(client, pair, operation, err);
      throw operationError(operation, err);
    }
    return { id, outs: { ...pair } };
  },

  async read(session, id, props) {
    const operation = describeOperation("reading", KIND, id);
    const pair = pairOf(id, props);
    if (pair === undefined) {
      throw operationError(
        operation,
        new Error('expected an id of the form "<securityGroupId>/<serverId>", such as "12/34"'),
      );
    }
    // A refresh reads every attachment of the stack at once: the group list serves them all.
    const list = groupList(session.client);
    const group = await session.lists
      .find(
        list.key,
        () => list.read(),
        (g) => g.id === pair.securityGroupId && g.servers.some((s) => s.id === pair.serverId),
      )
      .catch((err: unknown) => {
        throw operationError(operation, err);
      });
    if (group === undefined) return {};
    return { id: model.attachmentId(pair), props: { ...pair }, inputs: { ...pair } };
  },
});
