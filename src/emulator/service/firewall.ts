/**
 * Firewalls: the operations the firewall routes, the seeders and the admin API share. Group
 * names are unique per account (409); a group still attached to a server cannot be deleted (409).
 */
import type { RuleInput, SecurityGroupRequest } from "../../api/schemas/firewall";
import { conflict } from "../http/http-errors";
import type {
  AccountState,
  FirewallRuleRecord,
  SecurityGroupRecord,
  ServerRecord,
} from "../store/state";
import { type Author, insertNew } from "./author";
import { nameTaken } from "./validation";

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
function buildRules(
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

function checkNameFree(account: AccountState, name: string, exceptId?: number): void {
  const taken = nameTaken(account.security_groups, name, exceptId);
  if (taken !== undefined) {
    throw conflict(
      `A security group named ${taken.name} already exists (group ${taken.id})`,
      taken,
    );
  }
}

/** A new security group as POST /v1/firewall/groups makes it, once its name is checked. */
export function createGroup(author: Author, request: SecurityGroupRequest): SecurityGroupRecord {
  checkNameFree(author.account, request.name);
  return insertGroup(author, request);
}

/** A new security group, attached to no server, its name already checked (a seed document's). */
export function insertGroup(author: Author, request: SecurityGroupRequest): SecurityGroupRecord {
  return insertNew(author, author.account.security_groups, "security_group", () => ({
    name: request.name,
    description: request.description ?? "",
    created_by_user: author.user.id,
    rules: buildRules(author, request.rules, []),
    server_ids: [],
  }));
}

/** Replaces name, description and rules; a rule the group already has keeps its id. */
export function updateGroup(
  author: Pick<Author, "account" | "now" | "nextId">,
  group: SecurityGroupRecord,
  request: SecurityGroupRequest,
): void {
  checkNameFree(author.account, request.name, group.id);
  group.name = request.name;
  group.description = request.description ?? "";
  group.rules = buildRules(author, request.rules, group.rules);
  group.updated_at = author.now();
  author.account.security_groups.update(group);
}

export function deleteGroup(account: AccountState, group: SecurityGroupRecord): void {
  if (group.server_ids.length > 0) {
    throw conflict(
      `Security group ${group.id} is still attached to server ${group.server_ids.join(", ")}; detach it first`,
    );
  }
  account.security_groups.remove(group.id);
}

/** Attaches `group` to `server`; false when it already was (nothing recorded). */
export function attachGroup(
  author: Pick<Author, "account" | "now">,
  group: SecurityGroupRecord,
  server: ServerRecord,
): boolean {
  if (group.server_ids.includes(server.id)) return false;
  group.server_ids.push(server.id);
  group.updated_at = author.now();
  author.account.security_groups.update(group);
  return true;
}

/** Detaches `group` from `server`; false when it was not attached (nothing recorded). */
export function detachGroup(
  author: Pick<Author, "account" | "now">,
  group: SecurityGroupRecord,
  server: ServerRecord,
): boolean {
  if (!group.server_ids.includes(server.id)) return false;
  group.server_ids = group.server_ids.filter((id) => id !== server.id);
  group.updated_at = author.now();
  author.account.security_groups.update(group);
  return true;
}

/** Turns the server's firewall on or off (nothing recorded when it already is). */
export function switchFirewall(
  author: Pick<Author, "account" | "now">,
  server: ServerRecord,
  enabled: boolean,
): void {
  if (server.firewall_enabled === enabled) return;
  server.firewall_enabled = enabled;
  server.updated_at = author.now();
  author.account.servers.update(server);
}
