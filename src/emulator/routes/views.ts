/**
 * How servers, tags and security groups are answered. The three embed each other (a server its
 * tags and groups, a tag or a group its servers), so their views live together here; route
 * modules import them, never the other way round.
 */
import type {
  AccountState,
  Catalogue,
  FirewallRuleRecord,
  SecurityGroupRecord,
  ServerRecord,
  TagRecord,
} from "../state";

/** A rule as answered: `dport` and `source` only when set. */
export function ruleView(rule: FirewallRuleRecord) {
  return {
    id: rule.id,
    action: rule.action,
    proto: rule.proto,
    ...(rule.dport === undefined ? {} : { dport: rule.dport }),
    ...(rule.source === undefined ? {} : { source: rule.source }),
  };
}

/** A tag without its servers, as embedded in a server. */
export function nestedTagView(account: AccountState, tag: TagRecord) {
  return {
    id: tag.id,
    name: tag.name,
    color: tag.color,
    data: tag.data,
    account_id: account.profile.id,
    created_by_user: tag.created_by_user,
  };
}

/** A security group without its servers, as embedded in a server. */
export function nestedGroupView(account: AccountState, group: SecurityGroupRecord) {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    account_id: account.profile.id,
    created_by_user: group.created_by_user,
    created_at: group.created_at,
    updated_at: group.updated_at,
    rules: group.rules.map(ruleView),
  };
}

/** A server without its tags and groups, as embedded in a tag or a group. */
export function nestedServerView(
  account: AccountState,
  catalogue: Catalogue,
  server: ServerRecord,
) {
  const plan = catalogue.plans.find((p) => p.id === server.plan_id);
  return {
    id: server.id,
    unique_id: server.unique_id,
    created_at: server.created_at,
    updated_at: server.updated_at,
    ip: server.ip,
    user_id: server.user_id,
    account_id: account.profile.id,
    ...(server.vm_id === undefined ? {} : { vm_id: server.vm_id }),
    firewall_enabled: server.firewall_enabled,
    data: server.data,
    ...(plan === undefined ? {} : { plan }),
    plan_id: server.plan_id,
    ...(server.order_id === undefined ? {} : { order_id: server.order_id }),
    status: server.status,
    status_date: server.status_date,
    user_defined_name: server.user_defined_name,
  };
}

/** The servers a tag or a group names, oldest first (ids grow with creation time). */
function serversOf(account: AccountState, holder: { server_ids: readonly number[] }) {
  return holder.server_ids
    .flatMap((id) => account.servers.get(id) ?? [])
    .sort((a, b) => a.id - b.id);
}

/** A server with its tags and security groups (relations are stored on those, by server id). */
export function serverView(account: AccountState, catalogue: Catalogue, server: ServerRecord) {
  return {
    ...nestedServerView(account, catalogue, server),
    security_groups: account.security_groups
      .lookup("server", server.id)
      .map((group) => nestedGroupView(account, group)),
    tags: account.tags.lookup("server", server.id).map((tag) => nestedTagView(account, tag)),
  };
}

/** A tag with the servers carrying it. */
export function tagView(account: AccountState, catalogue: Catalogue, tag: TagRecord) {
  return {
    ...nestedTagView(account, tag),
    servers: serversOf(account, tag).map((server) => nestedServerView(account, catalogue, server)),
  };
}

/** A security group with the servers it is attached to. */
export function groupView(account: AccountState, catalogue: Catalogue, group: SecurityGroupRecord) {
  return {
    ...nestedGroupView(account, group),
    servers: serversOf(account, group).map((server) =>
      nestedServerView(account, catalogue, server),
    ),
  };
}
