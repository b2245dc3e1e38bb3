/**
 * How servers, tags and security groups are answered. The three embed each other (a server its
 * tags and groups, a tag or a group its servers), so their views live together here; route
 * modules import them, never the other way round. A user (spec: User) is answered here too,
 * inside tickets as on its own.
 *
 * Every object carries every field the spec gives its type, nested ones too: a server inside a
 * tag has its own `tags` and `security_groups`. The cycle is cut by depth instead: an answer
 * expands relations {@link RELATION_DEPTH} levels down, and the objects at the last level carry
 * their relation lists empty (read such an object itself to see its relations).
 */
import type {
  AccountState,
  Catalogue,
  FirewallRuleRecord,
  SecurityGroupRecord,
  ServerRecord,
  TagRecord,
  UserRecord,
} from "../store/state";

/** How many levels of relations an answer expands below the object asked for. */
export const RELATION_DEPTH = 2;

type RuleView = ReturnType<typeof ruleView>;

/** A Server as answered (spec: Server). */
interface ServerView {
  id: number;
  unique_id: number;
  created_at: string;
  updated_at: string;
  ip: string;
  user_id: number;
  account_id: number;
  vm_id: number | null;
  firewall_enabled: boolean;
  data: ServerRecord["data"];
  plan: Catalogue["plans"][number] | null;
  plan_id: number;
  order_id: number | null;
  security_groups: GroupView[];
  tags: TagView[];
  status: string;
  status_date: string;
  user_defined_name: string;
}

/** A Tag as answered (spec: Tag). */
export interface TagView {
  id: number;
  name: string;
  color: string;
  data: string;
  account_id: number;
  created_by_user: number;
  servers: ServerView[];
}

/** A SecurityGroup as answered (spec: SecurityGroup). */
export interface GroupView {
  id: number;
  name: string;
  description: string;
  account_id: number;
  created_by_user: number;
  created_at: string;
  updated_at: string;
  rules: RuleView[];
  servers: ServerView[];
}

/** A rule as answered; `dport` and `source` are null when the rule covers every port or source. */
export function ruleView(rule: FirewallRuleRecord) {
  return {
    id: rule.id,
    action: rule.action,
    proto: rule.proto,
    dport: rule.dport ?? null,
    source: rule.source ?? null,
  };
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/** The servers a tag or a group names, oldest first (ids grow with creation time). */
function serverViewsOf(
  account: AccountState,
  catalogue: Catalogue,
  holder: { server_ids: readonly number[] },
  depth: number,
): ServerView[] {
  if (depth === 0) return [];
  return holder.server_ids
    .flatMap((id) => account.servers.get(id) ?? [])
    .sort(byId)
    .map((server) => serverView(account, catalogue, server, depth - 1));
}

/** A server with its tags and security groups, `depth` levels of relations deep. */
export function serverView(
  account: AccountState,
  catalogue: Catalogue,
  server: ServerRecord,
  depth = RELATION_DEPTH,
): ServerView {
  const related = <T extends { id: number }, V>(records: T[], view: (record: T) => V): V[] =>
    depth === 0 ? [] : records.sort(byId).map(view);
  return {
    id: server.id,
    unique_id: server.unique_id,
    created_at: server.created_at,
    updated_at: server.updated_at,
    ip: server.ip,
    user_id: server.user_id,
    account_id: account.profile.id,
    // Dedicated servers run on no hypervisor, and seeded servers were never ordered.
    vm_id: server.vm_id ?? null,
    firewall_enabled: server.firewall_enabled,
    data: server.data,
    plan: catalogue.plans.find((p) => p.id === server.plan_id) ?? null,
    plan_id: server.plan_id,
    order_id: server.order_id ?? null,
    security_groups: related(account.security_groups.lookup("server", server.id), (group) =>
      groupView(account, catalogue, group, depth - 1),
    ),
    tags: related(account.tags.lookup("server", server.id), (tag) =>
      tagView(account, catalogue, tag, depth - 1),
    ),
    status: server.status,
    status_date: server.status_date,
    user_defined_name: server.user_defined_name,
  };
}

/** A tag with the servers carrying it, `depth` levels of relations deep. */
export function tagView(
  account: AccountState,
  catalogue: Catalogue,
  tag: TagRecord,
  depth = RELATION_DEPTH,
): TagView {
  return {
    id: tag.id,
    name: tag.name,
    color: tag.color,
    data: tag.data,
    account_id: account.profile.id,
    created_by_user: tag.created_by_user,
    servers: serverViewsOf(account, catalogue, tag, depth),
  };
}

/** A security group with the servers it is attached to, `depth` levels of relations deep. */
export function groupView(
  account: AccountState,
  catalogue: Catalogue,
  group: SecurityGroupRecord,
  depth = RELATION_DEPTH,
): GroupView {
  return {
    id: group.id,
    name: group.name,
    description: group.description,
    account_id: account.profile.id,
    created_by_user: group.created_by_user,
    created_at: group.created_at,
    updated_at: group.updated_at,
    rules: group.rules.map(ruleView),
    servers: serverViewsOf(account, catalogue, group, depth),
  };
}

/** A user as the wire shows it (spec: User): no key hash, no password, no DID internals. */
export function renderUser(user: UserRecord) {
  return {
    id: user.id,
    name: user.name,
    last_name: user.last_name,
    email: user.email === "" ? null : user.email,
    type: user.type,
    external: user.external,
    sys: user.sys,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
