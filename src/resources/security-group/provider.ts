/**
 * The SecurityGroup implementation. Creation answers no id (as the spec says), so the toolkit
 * finds the new group in the paged list: the group with our name that was not there before.
 */
import type { SecurityGroup, SecurityGroupRequest } from "../../api/schemas/firewall";
import type { Adoption } from "../adopt";
import {
  describeOperation,
  type KindNames,
  type KindOperations,
  labelOf,
  unlessNotFound,
} from "../common";
import { nameTakenError } from "../conflict";
import { resourceIdOf } from "../ids";
import { INPUT_RULES } from "../input-rules";
import {
  convergeNamed,
  type NamedKind,
  namedOperations,
  performing,
  readFound,
} from "../named-kind";
import type { ProviderSession } from "../session";
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

/** Security groups in the shared-list cache (./list.ts). */
const GROUPS: NamedKind<SecurityGroup, SecurityGroupRequest, unknown> = {
  what: GROUP,
  list: groupList,
  create: (client, request) => client.firewall.create(request),
  // The creation answer names no id (as the spec says): the toolkit finds the new group.
  idInAnswer: () => undefined,
  update: (client, id, request) => client.firewall.update(id, request),
  // A 409 says only that the name is taken; the user needs to know by which group.
  nameTaken: (session, name, err, self) =>
    nameTakenError(GROUP, err, {
      name,
      list: () => groupList(session.client).read(),
      managed: (id) => session.stack.manages(GROUP.kind, id),
      ...(self === undefined ? {} : { self }),
      detail: (existing) => {
        const servers = existing.servers.map((s) => s.id);
        return servers.length > 0 ? `, attached to server ${servers.join(", ")}` : undefined;
      },
    }),
};

/** Nothing about a group needs a replacement; the servers it is attached to stay attached. */
const adoption = (session: ProviderSession): Adoption<SecurityGroupInputs, SecurityGroup> => ({
  what: GROUP,
  read: (id) => unlessNotFound(session.client.firewall.get(id)),
  async converge(live, group) {
    if (live.name !== group.name || !matches(live, group)) {
      await convergeNamed(session, GROUPS, live, group.name, toApi(group));
    }
    return { ...outputsFromInputs(live.id, group) };
  },
});

export const operations = {
  ...namedOperations(GROUPS, {
    schema: SecurityGroupInputsSchema,
    rules: INPUT_RULES.SecurityGroup,
    fields: SECURITY_GROUP_FIELDS,
    toApi,
    outputsFromInputs,
    matches,
    adoption,
  }),

  async read(session, id, props) {
    // A refresh reads every group of the stack at once: they share the list (./list.ts).
    return readFound(
      describeOperation("reading", GROUP.kind, labelOf(props, id)),
      id,
      () => {
        const groupId = resourceIdOf(id, "a security group id");
        return findGroup(session, (g) => g.id === groupId);
      },
      fromApi,
      liveInputs,
    );
  },

  async delete(session, id, props) {
    await performing(describeOperation("deleting", GROUP.kind, labelOf(props, id)), () =>
      deleteWhenDetached(session, Number(id)),
    );
  },
} satisfies KindOperations;
