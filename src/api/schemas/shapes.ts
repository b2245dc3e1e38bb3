/**
 * The fields of a server, a tag and a security group without their relations to each other, and
 * the parts they need. A server lists its tags and groups, a tag and a group list their servers,
 * one level deep: each full schema (servers.ts, tags.ts, firewall.ts) nests the others' shapes
 * from here, so those modules do not import each other.
 */
import { z } from "zod";
import { KeyValueValueSchema, PlanSchema } from "./catalogue";
import { listOf, TimestampSchema } from "./common";

/** Server metadata entry (spec: KeyValue, where the value field is called `value`). */
export const ServerDataEntrySchema = z.object({
  /** Entry name, for example `os`. */
  name: z.string().nullish().describe("Entry name, for example os"),
  /** Entry value, as text. */
  value: KeyValueValueSchema.describe("Entry value, as text"),
});
export type ServerDataEntry = z.infer<typeof ServerDataEntrySchema>;

/** A firewall rule as the service returns it (spec: Rule, "at least id, action, proto, dport"). */
export const RuleSchema = z.object({
  /** Rule id. */
  id: z.int().describe("Rule id"),
  /** `ACCEPT` or `DROP`. */
  action: z.string().describe("ACCEPT or DROP"),
  /** `tcp`, `udp`, `icmp` or `any`. */
  proto: z.string().describe("tcp, udp, icmp or any"),
  /** Destination port (`22`) or range (`8000-8080`); absent for all ports, icmp and any. */
  dport: z.string().nullish().describe("Destination port or range, for example 22 or 8000-8080"),
  /** Source CIDR; absent means from anywhere. */
  source: z.string().nullish().describe("Source CIDR, for example 10.0.0.0/8"),
});
export type Rule = z.infer<typeof RuleSchema>;

/** Fields of a server without its relations to tags and security groups. */
export const serverShape = {
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

/** Fields of a security group without its servers. */
export const securityGroupShape = {
  /** Group id. */
  id: z.int().describe("Group id"),
  /** Name. */
  name: z.string().describe("Name"),
  /** Description. */
  description: z.string().nullish().describe("Description"),
  /** Owning account. */
  account_id: z.int().describe("Owning account"),
  /** Creating user. */
  created_by_user: z.int().describe("Creating user"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
  /** Firewall rules, in order. */
  rules: listOf(RuleSchema).describe("Firewall rules"),
};

/** Fields of a tag without its servers. */
export const tagShape = {
  /** Tag id. */
  id: z.int().describe("Tag id"),
  /** Tag name. */
  name: z.string().describe("Tag name"),
  /** Colour as `#RRGGBB`. */
  color: z.string().describe("Colour, #RRGGBB"),
  /** Free-form text (may hold JSON or `key:value` text). */
  data: z.string().nullish().describe("Free-form string data"),
  /** Owning account. */
  account_id: z.int().describe("Owning account"),
  /** Creating user id. */
  created_by_user: z.int().describe("Creating user id"),
};
