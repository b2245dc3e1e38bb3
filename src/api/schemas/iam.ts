/** Identity and access management: permissions, roles, API and DID users (spec: IAM). */
import { z } from "zod";
import {
  DescriptionInputSchema,
  expected,
  IdListInputSchema,
  IdSchema,
  listOf,
  NameInputSchema,
  TimestampSchema,
} from "./common";

/** Permission names this project defines, `resource:action` (project decision). */
export const PERMISSION_NAMES = [
  "servers:read",
  "servers:write",
  "tags:read",
  "tags:write",
  "firewall:read",
  "firewall:write",
  "keys:read",
  "keys:write",
  "iam:read",
  "iam:write",
  "billing:read",
  "billing:write",
  "tickets:read",
  "tickets:write",
  "account:read",
  "account:write",
] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

/** A permission (spec: Permission). */
export const PermissionSchema = z.object({
  /** Permission id. */
  id: z.int().describe("Permission id"),
  /** Name, written `resource:action` (`servers:write`). */
  name: z.string().describe("Permission name, resource:action"),
  /** What it allows. */
  description: z.string().nullish().describe("What it allows"),
});
export type Permission = z.infer<typeof PermissionSchema>;
export const PermissionListSchema = z.array(PermissionSchema);

/** A permission granted to a role (project decision; the spec shows only the name). */
export const RolePermissionSchema = z.object({
  /** Id of the grant. */
  id: z.int().describe("Id of the grant"),
  /** The role. */
  role_id: z.int().describe("Role id"),
  /** The granted permission's id. */
  permission_id: z.int().describe("Permission id"),
  /** The granted permission. */
  permission: PermissionSchema.nullish().describe("The granted permission"),
});
export type RolePermission = z.infer<typeof RolePermissionSchema>;

/** A role (spec: Role). */
export const RoleSchema = z.object({
  /** Role id. */
  id: z.int().describe("Role id"),
  /** Owning account; absent for system roles shared by all accounts. */
  account_id: z.int().nullish().describe("Owning account"),
  /** Role name. */
  name: z.string().describe("Role name"),
  /** Purpose or scope. */
  description: z.string().nullish().describe("Purpose or scope"),
  /** Whether the system defines the role; system roles cannot be changed or deleted (409). */
  system_role: z.boolean().describe("Whether defined by the system"),
  /** Permissions of the role. */
  role_permissions: listOf(RolePermissionSchema).describe("Permissions of the role"),
  /** Creating user id; absent for system roles. */
  created_by: z.int().nullish().describe("Creating user id"),
  /** Creating user's name. */
  created_by_name: z.string().nullish().describe("Creating user's name"),
  /** Creating user's e-mail. */
  created_by_email: z.string().nullish().describe("Creating user's e-mail"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Role = z.infer<typeof RoleSchema>;
export const RoleListSchema = z.array(RoleSchema);

/** Answer of `POST /v1/account/users` (spec: CreateUserResponse). */
export const CreateUserResponseSchema = z.object({
  /** New user id. */
  user_id: z.int().describe("New user id"),
  /**
   * The new user's API key. Shown once and not stored by the service: keep it secret. Empty for
   * DID users, who authenticate with their DID instead.
   */
  api_key: z.string().describe("API key of the created user (empty for did users)"),
});
export type CreateUserResponse = z.infer<typeof CreateUserResponseSchema>;

/** A decentralized identifier, `did:<method>:<method-specific id>` (W3C DID syntax). */
export const DidInputSchema = z
  .string({ error: expected("a string") })
  .regex(
    /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*$/,
    {
      error: "expected a DID of the form did:<method>:<id>, for example did:key:z6Mk...",
    },
  )
  .refine((did) => !did.endsWith(":"), {
    error: "expected a DID of the form did:<method>:<id>, for example did:key:z6Mk...",
  });

const userFields = {
  /** Display name of the user. */
  name: NameInputSchema.describe("User name"),
  /** Role to assign; give the fewest privileges needed. */
  role_id: IdSchema.describe("Role to assign"),
};

/**
 * Body of `POST /v1/account/users` (project decision). `api` users get an API key in the answer;
 * `did` users need the DID value and get none.
 */
export const CreateUserRequestSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({
      ...userFields,
      /** `api`: authenticates with the API key returned once at creation. */
      type: z.literal("api").describe("api or did"),
    }),
    z.strictObject({
      ...userFields,
      /** `did`: authenticates with signatures of the DID's private key. */
      type: z.literal("did").describe("api or did"),
      /** The DID (a public key), `did:<method>:<id>`; required for `did` users. */
      did: DidInputSchema.describe("The DID, required for did users"),
    }),
  ],
  { error: expected('type "api" or "did"') },
);
export type CreateUserRequest = z.input<typeof CreateUserRequestSchema>;

/** Body of `POST /v1/account/users/:id/update` (project decision). */
export const UpdateUserRoleRequestSchema = z.strictObject({
  /** The user's new role. */
  role_id: IdSchema.describe("New role"),
});
export type UpdateUserRoleRequest = z.input<typeof UpdateUserRoleRequestSchema>;

/**
 * Body of `POST /v1/account/roles` (project decision). `permission_ids` is the complete set; see
 * `iam.listPermissions()`.
 */
export const CreateRoleRequestSchema = z.strictObject({
  /** Role name, unique in the account (409 otherwise). */
  name: NameInputSchema.describe("Role name"),
  /** Purpose or scope. */
  description: DescriptionInputSchema.optional().describe("Purpose or scope"),
  /** Ids of the permissions the role grants (the complete set). */
  permission_ids: IdListInputSchema.describe("Permission ids the role grants"),
});
export type CreateRoleRequest = z.input<typeof CreateRoleRequestSchema>;

/** Body of `POST /v1/account/roles/:id/update`: replaces name, description and permissions. */
export const UpdateRoleRequestSchema = CreateRoleRequestSchema;
export type UpdateRoleRequest = z.input<typeof UpdateRoleRequestSchema>;
