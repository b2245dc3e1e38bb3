/**
 * The permission catalogue (`GET /v1/account/permissions`): `resource:action` pairs from
 * design.md. The names are the wire contract's {@link PERMISSION_NAMES} (src/api cannot import
 * the emulator, so the list lives there); ids and descriptions live here. Keying the table by
 * name makes the compiler refuse a name without an entry, or an entry for an unknown name.
 * Ids are stable (roles store them), so new permissions are appended, never inserted.
 */
import { PERMISSION_NAMES, type PermissionName } from "../../api/schemas/iam";

/** A permission as the API returns it (spec: Permission). */
export interface PermissionRecord {
  /** Permission id. */
  id: number;
  /** `resource:action`. */
  name: PermissionName;
  /** What it allows. */
  description: string;
}

const CATALOGUE: Readonly<Record<PermissionName, Omit<PermissionRecord, "name">>> = {
  "servers:read": { id: 1, description: "List servers and read their details and statistics" },
  "servers:write": { id: 2, description: "Create, rename, start, stop, reboot and delete servers" },
  "tags:read": { id: 3, description: "List tags and the servers carrying them" },
  "tags:write": { id: 4, description: "Create, change and delete tags" },
  "firewall:read": { id: 5, description: "List security groups and their rules" },
  "firewall:write": {
    id: 6,
    description:
      "Create, change and delete security groups, attach them to servers, switch server firewalls",
  },
  "keys:read": { id: 7, description: "List SSH keys and read their fingerprints" },
  "keys:write": { id: 8, description: "Import, generate and delete SSH keys" },
  "iam:read": { id: 9, description: "List roles and the permission catalogue" },
  "iam:write": { id: 10, description: "Create and delete users, create and change roles" },
  "billing:read": { id: 11, description: "Read orders, invoices and stored payment methods" },
  "billing:write": { id: 12, description: "Pay invoices and manage stored payment methods" },
  "tickets:read": { id: 13, description: "Read support tickets and their replies" },
  "tickets:write": { id: 14, description: "Open, reply to and close support tickets" },
  "account:read": { id: 15, description: "Read the account profile" },
  "account:write": { id: 16, description: "Change the account profile and billing address" },
};

/** Every permission, in the order of {@link PERMISSION_NAMES}: `read` before `write`. */
export const PERMISSIONS: readonly PermissionRecord[] = PERMISSION_NAMES.map((name) => ({
  name,
  ...CATALOGUE[name],
}));

/** The permission with this id, if any (ids come from requests and stored roles). */
export function permissionById(id: number): PermissionRecord | undefined {
  return PERMISSIONS.find((permission) => permission.id === id);
}

/** The permission with this name; every {@link PermissionName} has one. */
export function permissionByName(name: PermissionName): PermissionRecord {
  return { name, ...CATALOGUE[name] };
}
