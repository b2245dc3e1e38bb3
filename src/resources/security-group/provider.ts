import type { CloudInfraClient } from "../../api/client";
import type { SecurityGroup, SecurityGroupRequest } from "../../api/schemas/firewall";
import { type KindDefinition, type KindList, kindOperations, nameTaken } from "../kind";
import { deleteWhenDetached } from "./delete";
import * as model from "./model";

/** Shared with SecurityGroupAttachment under one key: a refresh of both reads it once. */
export function groupList(client: CloudInfraClient): KindList<SecurityGroup> {
  return {
    key: "security-groups",
    read: (options) => client.firewall.listAll({ limit: 100 }, options),
  };
}

export const definition: KindDefinition<
  model.SecurityGroupInputs,
  SecurityGroup,
  SecurityGroupRequest,
  unknown,
  model.SecurityGroupOutputs
> = {
  what: { kind: "SecurityGroup", noun: "security group" },
  schema: model.SecurityGroupInputsSchema,
  fields: model.SECURITY_GROUP_FIELDS,
  api: {
    idOf: (group) => group.id,
    list: groupList,
    get: (client, id) => client.firewall.get(id),
    create: (client, request) => client.firewall.create(request),
    idInAnswer: () => undefined,
    update: (client, id, request) => client.firewall.update(id, request),
    delete: (session, id) => deleteWhenDetached(session, Number(id)),
  },
  toApi: model.toApi,
  fromApi: model.fromApi,
  outputsFromInputs: model.outputsFromInputs,
  // A 409 says only that the name is taken; the user needs to know by which group.
  taken: (session, group, err, self) =>
    nameTaken(definition, session, group.name, err, self, {
      detail: (existing) => {
        const servers = existing.servers.map((s) => s.id);
        return servers.length > 0 ? `, attached to server ${servers.join(", ")}` : undefined;
      },
    }),
  adoption: {},
};

export const operations = kindOperations(definition);
