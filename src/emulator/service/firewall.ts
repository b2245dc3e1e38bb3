/** Firewalls: the operations the firewall routes, the seeders and the admin API share. */
import type { RuleInput, SecurityGroupRequest } from "../../api/schemas/firewall";
import type { FirewallRuleRecord, SecurityGroupRecord } from "../store/state";
import type { Author } from "./author";

function sameRule(rule: FirewallRuleRecord, input: RuleInput): boolean {
  return (
    rule.action === input.action &&
    rule.proto === input.proto &&
    rule.dport === input.dport &&
    rule.source === input.source
  );
}

/**
 * The stored rules for a request's rule list. A rule equal to one the group already has keeps
 * that rule's id, so repeating an update (an idempotent request) changes nothing a caller sees.
 */
export function buildRules(
  ctx: Pick<Author, "nextId">,
  inputs: readonly RuleInput[],
  previous: readonly FirewallRuleRecord[],
): FirewallRuleRecord[] {
  const unused = [...previous];
  return inputs.map((input) => {
    const index = unused.findIndex((rule) => sameRule(rule, input));
    const reused = index >= 0 ? unused.splice(index, 1)[0] : undefined;
    return {
      id: reused?.id ?? ctx.nextId("rule"),
      action: input.action,
      proto: input.proto,
      ...(input.dport === undefined ? {} : { dport: input.dport }),
      ...(input.source === undefined ? {} : { source: input.source }),
    };
  });
}

/** A new security group, attached to no server, as POST /v1/firewall/groups makes it. */
export function insertGroup(author: Author, request: SecurityGroupRequest): SecurityGroupRecord {
  const now = author.now();
  const group: SecurityGroupRecord = {
    id: author.nextId("security_group"),
    name: request.name,
    description: request.description ?? "",
    created_by_user: author.user.id,
    rules: buildRules(author, request.rules, []),
    server_ids: [],
    created_at: now,
    updated_at: now,
  };
  author.account.security_groups.insert(group);
  return group;
}
