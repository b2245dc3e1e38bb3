/** Servers: VMs and dedicated servers, their metrics and management actions (spec: Servers). */
import { z } from "zod";
import {
  expected,
  IdListInputSchema,
  IdSchema,
  listOf,
  NameInputSchema,
  TimestampSchema,
} from "./common";
import { securityGroupShape, serverShape, tagShape } from "./shapes";

export { type ServerDataEntry, ServerDataEntrySchema } from "./shapes";

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

/** A VM or dedicated server (spec: Server). */
export const ServerSchema = z.object({
  ...serverShape,
  /** Attached security groups (their `servers` are not included). */
  security_groups: listOf(z.object(securityGroupShape)).describe("Attached security groups"),
  /** Tags of the server (their `servers` are not included). */
  tags: listOf(z.object(tagShape)).describe("Tags of the server"),
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
