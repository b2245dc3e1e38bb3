/**
 * Who may call what. {@link ROUTE_PERMISSIONS} is the one table a reader checks: every route of
 * the spec, and the permission its caller's role must hold (`null`: any valid key). The router
 * refuses to register a /v1 route that is missing here, so a new route cannot ship unguarded.
 */
import { PERMISSION_NAMES, type PermissionName } from "../../api/schemas/iam";

export type RoutePermission = PermissionName | null;

export const ROUTE_PERMISSIONS: Readonly<Record<string, RoutePermission>> = {
  // Servers
  "GET /v1/servers": "servers:read",
  "POST /v1/servers": "servers:write",
  "GET /v1/servers/:id": "servers:read",
  "POST /v1/servers/:id": "servers:write",
  "POST /v1/servers/:id/management": "servers:write",
  "GET /v1/servers/:id/statistics": "servers:read",
  // Tags
  "GET /v1/tags": "tags:read",
  "POST /v1/tags": "tags:write",
  "POST /v1/tags/:id": "tags:write",
  "DELETE /v1/tags/:id": "tags:write",
  // Identity and access management
  "GET /v1/account/permissions": "iam:read",
  "POST /v1/account/users": "iam:write",
  "DELETE /v1/account/users/:id": "iam:write",
  "POST /v1/account/users/:id/update": "iam:write",
  "GET /v1/account/roles": "iam:read",
  "POST /v1/account/roles": "iam:write",
  "POST /v1/account/roles/:id/update": "iam:write",
  "DELETE /v1/account/roles/:id": "iam:write",
  // Billing
  "GET /v1/orders": "billing:read",
  "GET /v1/orders/:id": "billing:read",
  "GET /v1/invoices": "billing:read",
  "POST /v1/invoices/:id/payments": "billing:write",
  "GET /v1/wallet/cards": "billing:read",
  "POST /v1/wallet/cards/:id/default": "billing:write",
  "DELETE /v1/wallet/cards/:id": "billing:write",
  // Firewalls (attaching a group or switching a server's firewall is a firewall change)
  "GET /v1/firewall/groups": "firewall:read",
  "POST /v1/firewall/groups": "firewall:write",
  "GET /v1/firewall/groups/:id": "firewall:read",
  "POST /v1/firewall/groups/:id": "firewall:write",
  "DELETE /v1/firewall/groups/:id": "firewall:write",
  "POST /v1/firewall/groups/:id/servers/:sid": "firewall:write",
  "DELETE /v1/firewall/groups/:id/servers/:sid": "firewall:write",
  "POST /v1/firewall/groups/servers/:id": "firewall:write",
  // Support
  "GET /v1/tickets": "tickets:read",
  "POST /v1/tickets": "tickets:write",
  "GET /v1/tickets/:id": "tickets:read",
  "POST /v1/tickets/:id/status": "tickets:write",
  "POST /v1/tickets/:id/replies": "tickets:write",
  // SSH keys
  "GET /v1/keys": "keys:read",
  "POST /v1/keys": "keys:write",
  "GET /v1/keys/:id": "keys:read",
  "DELETE /v1/keys/:id": "keys:write",
  // Blog and catalogues: any valid key
  "GET /v1/blog/posts": null,
  "GET /v1/blog/posts/:name": null,
  "GET /v1/plans": null,
  "GET /v1/countries": null,
  "GET /v1/images": null,
  // User and account: anyone may read who they are and edit their own profile
  "POST /v1/introspect": null,
  "POST /v1/users/me": null,
  "POST /v1/users/account": "account:write",
};

/** System roles every account starts with; they cannot be changed or deleted (409). */
export const SYSTEM_ROLES: readonly {
  name: string;
  description: string;
  permissions: readonly PermissionName[];
}[] = [
  {
    name: "Administrator",
    description: "Full access to every area of the account",
    permissions: PERMISSION_NAMES,
  },
  {
    name: "Read only",
    description: "Read access to every area, no changes",
    permissions: PERMISSION_NAMES.filter((name) => name.endsWith(":read")),
  },
];
