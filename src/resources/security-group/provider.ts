/**
 * The SecurityGroup implementation. Creation answers no id (as the spec says), so the toolkit
 * finds the new group in the paged list: the group with our name that was not there before.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, NotFoundError } from "../../api/errors";
import type { SecurityGroup } from "../../api/schemas/firewall";
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
  unlessNotFound,
} from "../common";
import { nameTakenError } from "../conflict";
import { createExactlyOnce } from "../create";
import { resourceIdOf } from "../ids";
import { onCurrentSession, type ProviderSession } from "../session";
import { deleteWhenDetached } from "./delete";
import { findGroup, groupList } from "./list";
import {
  fromApi,
  liveInputs,
  matches,
  outputsFromInputs,
  SECURITY_GROUP_FIELDS,
  type SecurityGroupInputs,
  SecurityGroupInputsSchema,
  toApi,
} from "./model";

const GROUP: KindNames = { kind: "SecurityGroup", noun: "security group" };

/** The 409 says only that the name is taken; the user needs to know by which group. */
function nameTaken(
  client: CloudInfraClient,
  name: string,
  err: ConflictError,
  self?: string,
): Promise<Error> {
  return nameTakenError(GROUP, err, {
    name,
    list: () => groupList(client).read(),
    ...(self === undefined ? {} : { self }),
    detail: (existing) => {
      const servers = existing.servers.map((s) => s.id);
      return servers.length > 0 ? `, attached to server ${servers.join(", ")}` : undefined;
    },
  });
}

/** Nothing about a group needs a replacement; the servers it is attached to stay attached. */
const adoption = (session: ProviderSession): Adoption<SecurityGroupInputs, SecurityGroup> => ({
  what: GROUP,
  read: (id) => unlessNotFound(session.client.firewall.get(id)),
  async converge(live, group) {
    if (live.name !== group.name || !matches(live, group)) {
      const client = session.client;
      try {
        await client.firewall.update(live.id, toApi(group));
      } catch (err) {
        if (err instanceof ConflictError) {
          throw await nameTaken(client, group.name, err, String(live.id));
        }
        throw err;
      }
    }
    return { ...outputsFromInputs(live.id, group) };
  },
});

export const operations = {
  async check(_session, _olds, news) {
    return checkInputs(SecurityGroupInputsSchema, news);
  },

  async diff(_session, id, olds, news) {
    return guardAdoptedReplacement(GROUP, id, news, diffInputs(olds, news, SECURITY_GROUP_FIELDS));
  },

  async create(session, inputs) {
    const group = parseChecked(SecurityGroupInputsSchema, inputs);
    if (group.adoptId !== undefined) return adopt(adoption(session), group, group.adoptId);
    const operation = describeOperation("creating", "SecurityGroup", group.name);
    const client = session.client;
    try {
      const made = await createExactlyOnce({
        what: GROUP,
        describe: `named ${JSON.stringify(group.name)}`,
        session,
        lookup: {
          ...groupList(client),
          idOf: (g) => g.id,
          matches: (g) => g.name === group.name && matches(g, group),
        },
        send: () => client.firewall.create(toApi(group)),
        idInAnswer: () => undefined,
        journal: { journal: session.journal, request: toApi(group) },
      });
      return { id: String(made.id), outs: { ...outputsFromInputs(made.id, group) } };
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(client, group.name, err));
      }
      throw operationError(operation, err);
    }
  },

  async read(session, id, props) {
    const label = labelOf(props, id);
    let group: SecurityGroup | undefined;
    try {
      // A refresh reads every group of the stack at once: they share the list (./list.ts).
      const groupId = resourceIdOf(id, "a security group id");
      group = await findGroup(session, (g) => g.id === groupId);
    } catch (err) {
      throw operationError(describeOperation("reading", "SecurityGroup", label), err);
    }
    if (group === undefined) return {};
    const outs = fromApi(group);
    return { id, props: { ...outs }, inputs: liveInputs(outs) };
  },

  async update(session, id, _olds, news) {
    const group = parseChecked(SecurityGroupInputsSchema, news);
    const operation = describeOperation("updating", "SecurityGroup", group.name);
    const client = session.client;
    try {
      await client.firewall.update(id, toApi(group));
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(client, group.name, err, id));
      }
      if (err instanceof NotFoundError) {
        throw deletedOutsidePulumiError(operation, "security group", id, err);
      }
      throw operationError(operation, err);
    }
    return { outs: { ...outputsFromInputs(Number(id), group) } };
  },

  async delete(session, id, props) {
    const operation = describeOperation("deleting", "SecurityGroup", labelOf(props, id));
    try {
      await deleteWhenDetached(session, Number(id));
    } catch (err) {
      throw operationError(operation, err);
    }
  },
} satisfies KindOperations;

/** {@link operations} on the session of the configuration the host was given. */
export const implementation = onCurrentSession(operations);
