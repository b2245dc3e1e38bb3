/**
 * The SecurityGroup implementation. Creation answers no id (as the spec says), so `create` finds
 * the new group by its name, which is unique in the account, in the paged list.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, isAmbiguousFailure, NotFoundError } from "../../api/errors";
import type { SecurityGroup } from "../../api/schemas/firewall";
import { type AdoptedKind, describeAdoption, findAdoptee, guardAdoptedReplacement } from "../adopt";
import {
  checkInputs,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  labelOf,
  operationError,
  parseChecked,
  type ResourceImplementation,
  unlessNotFound,
} from "../common";
import { apiClient } from "../session";
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

const GROUP: AdoptedKind = { kind: "SecurityGroup", noun: "security group" };
/** Create requests sent at most, when answers are lost and no group shows up. */
const CREATE_ATTEMPTS = 3;

async function findByName(
  client: CloudInfraClient,
  name: string,
): Promise<SecurityGroup | undefined> {
  for await (const group of client.firewall.iterate({ limit: 100 })) {
    if (group.name === name) return group;
  }
  return undefined;
}

function nameTakenError(operation: string, existing: SecurityGroup, cause?: unknown): Error {
  const servers = existing.servers.map((s) => s.id);
  const attached = servers.length > 0 ? `, attached to server ${servers.join(", ")}` : "";
  const detail = cause instanceof Error ? ` (${cause.message})` : "";
  return operationError(
    operation,
    new Error(
      `a security group named ${JSON.stringify(existing.name)} already exists (security group id ${existing.id}${attached}); group names are unique in an account: choose another name, or delete or rename the existing group${detail}`,
      cause === undefined ? undefined : { cause },
    ),
  );
}

/** The new group's id: the answer to a create has none, so the list is searched by name. */
async function idOfCreated(
  client: CloudInfraClient,
  group: SecurityGroupInputs,
  operation: string,
): Promise<number> {
  let made: SecurityGroup | undefined;
  try {
    made = await findByName(client, group.name);
  } catch (err) {
    throw operationError(
      operation,
      new Error(
        `the group was created, but reading the list to learn its id failed; the next \`pulumi up\` will report the existing group and its id: delete it and run again (${err instanceof Error ? err.message : String(err)})`,
        { cause: err },
      ),
    );
  }
  if (made === undefined) {
    throw operationError(
      operation,
      new Error(
        `the service accepted the group, but no group named ${JSON.stringify(group.name)} is in the list (deleted at once by someone else?)`,
      ),
    );
  }
  return made.id;
}

/**
 * `create` with `adoptId`: reads the group and updates it in place when its name, description or
 * rules differ. Nothing about a group needs a replacement; the servers it is attached to stay.
 */
async function adoptGroup(group: SecurityGroupInputs, adoptId: number) {
  const operation = describeAdoption(GROUP, group.name, adoptId);
  const client = apiClient();
  const live = await findAdoptee(operation, GROUP, adoptId, () =>
    unlessNotFound(client.firewall.get(adoptId)),
  );
  if (live.name !== group.name || !matches(live, group)) {
    try {
      await client.firewall.update(adoptId, toApi(group));
    } catch (err) {
      if (err instanceof ConflictError) {
        const other = await findByName(client, group.name).catch(() => undefined);
        if (other !== undefined && other.id !== adoptId) {
          throw nameTakenError(operation, other, err);
        }
      }
      throw operationError(operation, err);
    }
  }
  return { id: String(adoptId), outs: { ...outputsFromInputs(adoptId, group) } };
}

export const implementation = {
  async check(_olds, news) {
    return checkInputs(SecurityGroupInputsSchema, news);
  },

  async diff(id, olds, news) {
    return guardAdoptedReplacement(GROUP, id, news, diffInputs(olds, news, SECURITY_GROUP_FIELDS));
  },

  async create(inputs) {
    const group = parseChecked(SecurityGroupInputsSchema, inputs);
    if (group.adoptId !== undefined) return adoptGroup(group, group.adoptId);
    const operation = describeOperation("creating", "SecurityGroup", group.name);
    const client = apiClient();
    const body = toApi(group);
    // Checked first so that a group made by an earlier, lost answer below can be told from one
    // that was already there.
    let existing: SecurityGroup | undefined;
    try {
      existing = await findByName(client, group.name);
    } catch (err) {
      throw operationError(operation, err);
    }
    if (existing !== undefined) throw nameTakenError(operation, existing);
    let lostAnswer = false;
    for (let attempt = 1; ; attempt++) {
      try {
        await client.firewall.create(body);
      } catch (err) {
        if (!isAmbiguousFailure(err) && !(err instanceof ConflictError && lostAnswer)) {
          if (err instanceof ConflictError) {
            const other = await findByName(client, group.name).catch(() => undefined);
            if (other !== undefined) throw nameTakenError(operation, other, err);
          }
          throw operationError(operation, err);
        }
        // The request may have been applied: a group with our name that was not there before
        // and holds exactly our rules is the one it made.
        const made = await findByName(client, group.name).catch(() => undefined);
        if (made !== undefined && matches(made, group)) {
          return { id: String(made.id), outs: { ...outputsFromInputs(made.id, group) } };
        }
        if (made !== undefined) throw nameTakenError(operation, made, err);
        if (err instanceof ConflictError || attempt >= CREATE_ATTEMPTS) {
          throw operationError(operation, err);
        }
        lostAnswer = true;
        continue;
      }
      const id = await idOfCreated(client, group, operation);
      return { id: String(id), outs: { ...outputsFromInputs(id, group) } };
    }
  },

  async read(id, props) {
    const label = labelOf(props, id);
    try {
      const outs = fromApi(await apiClient().firewall.get(id));
      return { id, props: { ...outs }, inputs: liveInputs(outs) };
    } catch (err) {
      if (err instanceof NotFoundError) return {};
      throw operationError(describeOperation("reading", "SecurityGroup", label), err);
    }
  },

  async update(id, _olds, news) {
    const group = parseChecked(SecurityGroupInputsSchema, news);
    const operation = describeOperation("updating", "SecurityGroup", group.name);
    const client = apiClient();
    try {
      await client.firewall.update(id, toApi(group));
    } catch (err) {
      if (err instanceof ConflictError) {
        const other = await findByName(client, group.name).catch(() => undefined);
        if (other !== undefined && String(other.id) !== id) {
          throw nameTakenError(operation, other, err);
        }
      }
      if (err instanceof NotFoundError) {
        throw deletedOutsidePulumiError(operation, "security group", id, err);
      }
      throw operationError(operation, err);
    }
    return { outs: { ...outputsFromInputs(Number(id), group) } };
  },

  async delete(id, props) {
    const label = labelOf(props, id);
    try {
      await apiClient().firewall.delete(id);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw operationError(describeOperation("deleting", "SecurityGroup", label), err);
    }
  },
} satisfies ResourceImplementation;
