/**
 * Firewalls (spec: Firewalls): security groups of rules, attached to servers, and each server's
 * firewall switch. A group holds the ids of its servers; servers show their groups through the
 * views in views.ts.
 */
import {
  SecurityGroupRequestSchema,
  UpdateServerFirewallRequestSchema,
} from "../../api/schemas/firewall";
import { findOr404 } from "../http/http-errors";
import { defineRoute } from "../http/router";
import {
  attachGroup,
  createGroup,
  deleteGroup,
  detachGroup,
  switchFirewall,
  updateGroup,
} from "../service/firewall";
import { groupView } from "./views";

/**
 * `POST` (attach) or `DELETE` (detach) `/v1/firewall/groups/:id/servers/:sid`: `change` applies it
 * and says whether anything changed; the answer says which it was, in `words`.
 */
function attachmentRoute(
  method: "POST" | "DELETE",
  change: typeof attachGroup,
  words: { changed: string; unchanged: string },
) {
  return defineRoute({
    method,
    path: "/v1/firewall/groups/:id/servers/:sid",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      const server = findOr404(ctx.account.servers, ctx.intParam("sid"), "Server");
      const done = change(ctx, group, server) ? words.changed : words.unchanged;
      return ctx.generic(`Security group ${group.id} ${done} server ${server.id}`);
    },
  });
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
      const { id } = createGroup(ctx, ctx.body);
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
      updateGroup(ctx, group, ctx.body);
      return ctx.generic(`Security group ${group.id} updated`);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/firewall/groups/:id",
    handler(ctx) {
      const group = findOr404(ctx.account.security_groups, ctx.intParam("id"), "Security group");
      deleteGroup(ctx.account, group);
      return ctx.generic(`Security group ${group.id} deleted`);
    },
  }),
  attachmentRoute("POST", attachGroup, {
    changed: "attached to",
    unchanged: "is already attached to",
  }),
  attachmentRoute("DELETE", detachGroup, {
    changed: "detached from",
    unchanged: "is not attached to",
  }),
  defineRoute({
    method: "POST",
    path: "/v1/firewall/groups/servers/:id",
    body: UpdateServerFirewallRequestSchema,
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      switchFirewall(ctx, server, ctx.body.firewall_enabled);
      const state = server.firewall_enabled ? "enabled" : "disabled";
      return ctx.generic(`Firewall of server ${server.id} ${state}`);
    },
  }),
];
