/**
 * The permission catalogue (`GET /v1/account/permissions`): `resource:action` pairs from
 * design.md. Ids are stable (roles store them), so new permissions are appended, never inserted.
 */

/** A permission as the API returns it (spec: Permission). */
export interface PermissionRecord {
  /** Permission id. */
  id: number;
  /** `resource:action`. */
  name: string;
  /** What it allows. */
  description: string;
}

/** Every permission, `read` before `write` for each resource. */
export const PERMISSIONS: readonly PermissionRecord[] = [
  {
    id: 1,
    name: "servers:read",
    description: "List servers and read their details and statistics",
  },
  {
    id: 2,
    name: "servers:write",
    description: "Create, rename, start, stop, reboot and delete servers",
  },
  { id: 3, name: "tags:read", description: "List tags and the servers carrying them" },
  { id: 4, name: "tags:write", description: "Create, change and delete tags" },
  { id: 5, name: "firewall:read", description: "List security groups and their rules" },
  {
    id: 6,
    name: "firewall:write",
    description:
      "Create, change and delete security groups, attach them to servers, switch server firewalls",
  },
  { id: 7, name: "keys:read", description: "List SSH keys and read their fingerprints" },
  { id: 8, name: "keys:write", description: "Import, generate and delete SSH keys" },
  { id: 9, name: "iam:read", description: "List roles and the permission catalogue" },
  { id: 10, name: "iam:write", description: "Create and delete users, create and change roles" },
  {
    id: 11,
    name: "billing:read",
    description: "Read orders, invoices and stored payment methods",
  },
  {
    id: 12,
    name: "billing:write",
    description: "Pay invoices and manage stored payment methods",
  },
  { id: 13, name: "tickets:read", description: "Read support tickets and their replies" },
  { id: 14, name: "tickets:write", description: "Open, reply to and close support tickets" },
  { id: 15, name: "account:read", description: "Read the account profile" },
  { id: 16, name: "account:write", description: "Change the account profile and billing address" },
];

/** The permission with this name, if any. */
export function findPermissionByName(name: string): PermissionRecord | undefined {
  return PERMISSIONS.find((permission) => permission.name === name);
}
