/**
 * Firewalls (spec: Firewalls): security groups of rules, attached to servers, and each server's
 * firewall switch. A group holds the ids of its servers; servers show their groups through the
 * views in views.ts.
 */
import {
  type RuleInput,
  type SecurityGroupRequest,
  SecurityGroupRequestSchema,
  UpdateServerFirewallRequestSchema,
} from "../../api/schemas/firewall";
import { conflict, findOr404 } from "../http-errors";
import { type Author, defineRoute } from "../router";
import type { AccountState, FirewallRuleRecord, SecurityGroupRecord } from "../state";
import { nameTaken } from "./validation";
import { groupView } from "./views";

function checkNameFree(account: AccountState, name: string, exceptId?: number): void {
  const taken = nameTaken(account.security_groups, name, exceptId);
  if (taken !== undefined) {
    throw conflict(
      `A security group named ${taken.name} already exists (group ${taken.id})`,
      taken.id,
    );
  }
}

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

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/firewall/groups",
    handler(ctx) {
      const page = ctx.page(ctx.account.security_groups.all());
      return ctx.json({
        data: page.items.map((g) => groupView(ctx.account, ctx.catalogue, g)),
        page: page.page,
        limit: page.limit,
        total_count: page.total_count,
        total_pages: page.total_pages,
      });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/firewall/groups",
    body: SecurityGroupRequestSchema,
    handler(ctx) {
      checkNameFree(ctx.account, ctx.body.name);
      const { id } = insertGroup(ctx, ctx.body);
      // The spec's answer has no id field; the name, unique per account, finds the group.
      return ctx.json(
        { success: true, message: `Security group ${ctx.body.name} created with id ${id}` },
        201,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/firewall/groups/:id",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      return ctx.json(groupView(ctx.account, ctx.catalogue, group));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/firewall/groups/:id",
    body: SecurityGroupRequestSchema,
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      checkNameFree(ctx.account, ctx.body.name, group.id);
      group.name = ctx.body.name;
      group.description = ctx.body.description ?? "";
      group.rules = buildRules(ctx, ctx.body.rules, group.rules);
      group.updated_at = ctx.now();
      ctx.account.security_groups.update(group);
      return ctx.generic(`Security group ${group.id} updated`);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/firewall/groups/:id",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      if (group.server_ids.length > 0) {
        throw conflict(
          `Security group ${group.id} is still attached to server ${group.server_ids.join(", ")}; detach it first`,
        );
      }
      ctx.account.security_groups.remove(group.id);
      return ctx.generic(`Security group ${group.id} deleted`);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/firewall/groups/:id/servers/:sid",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      const server = findOr404(ctx.account.servers, ctx.intParam("sid"), "Server");
      if (group.server_ids.includes(server.id)) {
        return ctx.generic(`Security group ${group.id} is already attached to server ${server.id}`);
      }
      group.server_ids.push(server.id);
      group.updated_at = ctx.now();
      ctx.account.security_groups.update(group);
      return ctx.generic(`Security group ${group.id} attached to server ${server.id}`);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/firewall/groups/:id/servers/:sid",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      const server = findOr404(ctx.account.servers, ctx.intParam("sid"), "Server");
      if (!group.server_ids.includes(server.id)) {
        return ctx.generic(`Security group ${group.id} is not attached to server ${server.id}`);
      }
      group.server_ids = group.server_ids.filter((id) => id !== server.id);
      group.updated_at = ctx.now();
      ctx.account.security_groups.update(group);
      return ctx.generic(`Security group ${group.id} detached from server ${server.id}`);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/firewall/groups/servers/:id",
    body: UpdateServerFirewallRequestSchema,
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      if (server.firewall_enabled !== ctx.body.firewall_enabled) {
        server.firewall_enabled = ctx.body.firewall_enabled;
        server.updated_at = ctx.now();
        ctx.account.servers.update(server);
      }
      const state = server.firewall_enabled ? "enabled" : "disabled";
      return ctx.generic(`Firewall of server ${server.id} ${state}`);
    },
  }),
];
