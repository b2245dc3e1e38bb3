/** Servers: VMs and dedicated servers, their metrics and management actions (spec: Servers). */
import { z } from "zod";
import { KeyValueValueSchema, PlanSchema } from "./catalogue";
import {
  expected,
  IdListInputSchema,
  IdSchema,
  listOf,
  NameInputSchema,
  TimestampSchema,
} from "./common";
import * as firewall from "./firewall";
import * as tags from "./tags";

/** Server metadata entry (spec: KeyValue, where the value field is called `value`). */
export const ServerDataEntrySchema = z.object({
  /** Entry name, for example `os`. */
  name: z.string().nullish().describe("Entry name, for example os"),
  /** Entry value, as text. */
  value: KeyValueValueSchema.describe("Entry value, as text"),
});
export type ServerDataEntry = z.infer<typeof ServerDataEntrySchema>;

/**
 * Statuses the project uses (the spec shows running, stopped and provisioning as examples only).
 * `Server.status` is parsed as a string so that a status added later still reads.
 */
export const SERVER_STATUSES = [
  "provisioning",
  "running",
  "starting",
  "stopping",
  "stopped",
  "rebooting",
  "deleting",
  "error",
] as const;
export const ServerStatusSchema = z.enum(SERVER_STATUSES);
export type ServerStatus = z.infer<typeof ServerStatusSchema>;

/** Management actions (project decision; the spec does not list them). */
export const MANAGEMENT_ACTIONS = ["start", "stop", "reboot", "delete"] as const;
export const ManagementActionSchema = z.enum(MANAGEMENT_ACTIONS);
export type ManagementAction = z.infer<typeof ManagementActionSchema>;

/**
 * What each management action does to a server's status (project decision): the statuses it is
 * accepted in (otherwise 409 conflict), the transitional status it moves to at once, and the
 * status it settles in (`null`: the server is gone and reads answer 404).
 */
export const MANAGEMENT_TRANSITIONS: Readonly<
  Record<
    ManagementAction,
    { from: readonly ServerStatus[]; via: ServerStatus; to: ServerStatus | null }
  >
> = {
  start: { from: ["stopped"], via: "starting", to: "running" },
  stop: { from: ["running"], via: "stopping", to: "stopped" },
  reboot: { from: ["running"], via: "rebooting", to: "running" },
  delete: { from: ["running", "stopped", "error"], via: "deleting", to: null },
};

/** Fields of a server without its relations to tags and security groups. */
const serverShape = {
  /** Unique identifier of the server. */
  id: z.int().describe("Unique identifier of the server"),
  /** Unique internal identifier. */
  unique_id: z.int().describe("Unique internal identifier"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
  /** Public or private IP address; may be empty or absent while the server is provisioning. */
  ip: z.string().nullish().describe("Public or private IP address assigned"),
  /** User who created or manages the server. */
  user_id: z.int().describe("User who created or manages the server"),
  /** Owning account. */
  account_id: z.int().describe("Owning account"),
  /** VM id in the underlying infrastructure; absent for dedicated servers and early on. */
  vm_id: z.int().nullish().describe("VM id in the underlying infrastructure (optional)"),
  /** Whether the server firewall is enabled. */
  firewall_enabled: z.boolean().describe("Whether the server firewall is enabled"),
  /** Key-value metadata, for example an `os` entry. */
  data: listOf(ServerDataEntrySchema).describe("Key-value metadata"),
  /** Plan details; some answers leave it out (use `plan_id`). */
  plan: PlanSchema.nullish().describe("Plan details"),
  /** Plan identifier. */
  plan_id: z.int().describe("Plan identifier"),
  /** Related order identifier. */
  order_id: z.int().nullish().describe("Related order identifier"),
  /** Current status; see {@link SERVER_STATUSES} for the values this project uses. */
  status: z.string().describe("Current status: provisioning, running, stopped, ..."),
  /** Timestamp of the latest status change. */
  status_date: TimestampSchema.nullish().describe("Timestamp of the latest status change"),
  /** Name chosen by the user. */
  user_defined_name: z.string().describe("Name chosen by the user"),
};

/**
 * A server as nested inside a tag or a security group. Relations are parsed one level deep; the
 * nested server's own tags and groups are dropped (ask for the server to read them).
 */
export const NestedServerSchema = z.object(serverShape);
export type NestedServer = z.infer<typeof NestedServerSchema>;

/** A VM or dedicated server (spec: Server). */
export const ServerSchema = z.object({
  ...serverShape,
  // Getters: tags.ts and firewall.ts import this module too; reading them lazily keeps the
  // import cycle harmless under CommonJS.
  /** Attached security groups (their `servers` are not included). */
  get security_groups() {
    return listOf(firewall.NestedSecurityGroupSchema).describe("Attached security groups");
  },
  /** Tags of the server (their `servers` are not included). */
  get tags() {
    return listOf(tags.NestedTagSchema).describe("Tags of the server");
  },
});
export type Server = z.infer<typeof ServerSchema>;
export const ServerListSchema = z.array(ServerSchema);

/** Server statistics; every array has one value per entry of `timestamps` (spec: Metrics). */
export const MetricsSchema = z.object({
  /** Sample times, RFC 3339. */
  timestamps: z.array(TimestampSchema).describe("Sample times, RFC 3339"),
  /** CPU usage in percent. */
  cpu_usage_percent: z.array(z.number()).describe("CPU usage, percent"),
  /** Memory used, megabytes. */
  mem_used_mb: z.array(z.number()).describe("Memory used, megabytes"),
  /** Total memory, megabytes (one value). */
  mem_total_mb: z.number().describe("Total memory, megabytes"),
  /** Network in, kilobits per second. */
  net_in_kbps: z.array(z.number()).describe("Network in, kilobits per second"),
  /** Network out, kilobits per second. */
  net_out_kbps: z.array(z.number()).describe("Network out, kilobits per second"),
  /** Disk reads, kilobytes per second. */
  disk_read_kbps: z.array(z.number()).describe("Disk reads, kilobytes per second"),
  /** Disk writes, kilobytes per second. */
  disk_write_kbps: z.array(z.number()).describe("Disk writes, kilobytes per second"),
});
export type Metrics = z.infer<typeof MetricsSchema>;

/** Answer of a management action (spec: ManagementResponse). */
export const ManagementResponseSchema = z.object({
  /** Identifier of the started action (a UUID). There is no endpoint to read an action. */
  action_id: z.string().describe("Identifier of the initiated management action"),
});
export type ManagementResponse = z.infer<typeof ManagementResponseSchema>;

/** Most servers one create request may ask for (project decision). */
export const MAX_SERVER_QUANTITY = 10;

/** Body of `POST /v1/servers` (project decision; the spec shows no fields). */
export const CreateServerRequestSchema = z.strictObject({
  /** Plan to deploy; see `catalogue.listPlans()`. */
  plan_id: IdSchema.describe("Plan to deploy"),
  /** OS image name; see `catalogue.listImages()`. */
  image: z
    .string({ error: expected("a string") })
    .min(1, { error: "must not be empty" })
    .describe("OS image name"),
  /** Name shown for the server; with `quantity` > 1 all servers share it. */
  user_defined_name: NameInputSchema.describe("Name chosen by the user"),
  /** SSH keys to install. */
  ssh_key_ids: IdListInputSchema.optional().describe("SSH key ids to install"),
  /** Security groups to attach at creation. */
  security_group_ids: IdListInputSchema.optional().describe("Security group ids to attach"),
  /** Whether to enable the server firewall (default false). */
  firewall_enabled: z.boolean({ error: expected("a boolean") }).optional(),
  /** How many identical servers to create, 1 to 10; default 1. */
  quantity: z
    .int({ error: `expected an integer from 1 to ${MAX_SERVER_QUANTITY}` })
    .min(1, { error: `expected an integer from 1 to ${MAX_SERVER_QUANTITY}` })
    .max(MAX_SERVER_QUANTITY, { error: `expected an integer from 1 to ${MAX_SERVER_QUANTITY}` })
    .default(1)
    .describe("Number of servers to create, default 1"),
});
export type CreateServerRequest = z.input<typeof CreateServerRequestSchema>;

/** Body of `POST /v1/servers/:id` (project decision). */
export const UpdateServerRequestSchema = z.strictObject({
  /** New name of the server. */
  user_defined_name: NameInputSchema.optional().describe("New name of the server"),
});
export type UpdateServerRequest = z.input<typeof UpdateServerRequestSchema>;

/** Body of `POST /v1/servers/:id/management` (project decision). */
export const ManagementRequestSchema = z.strictObject({
  /** start, stop, reboot or delete; see {@link MANAGEMENT_TRANSITIONS}. */
  action: ManagementActionSchema.describe("start, stop, reboot or delete"),
});
export type ManagementRequest = z.input<typeof ManagementRequestSchema>;
