/** Firewalls: security groups of rules, attached to servers (spec: Firewalls). */
import { z } from "zod";
import { DescriptionInputSchema, expected, listOf, NameInputSchema, PageInfoShape } from "./common";
import { securityGroupShape, serverShape } from "./shapes";

/** Rule actions (project decision; the spec gives ACCEPT as an example). */
export const RULE_ACTIONS = ["ACCEPT", "DROP"] as const;
/** Rule protocols (project decision; the spec gives tcp as an example). */
export const RULE_PROTOCOLS = ["tcp", "udp", "icmp", "any"] as const;

export { type Rule, RuleSchema } from "./shapes";

/** A security group (spec: SecurityGroup). */
export const SecurityGroupSchema = z.object({
  ...securityGroupShape,
  /** Servers the group is attached to (their own tags and groups are not included). */
  servers: listOf(z.object(serverShape)).describe("Servers the group is attached to"),
});
export type SecurityGroup = z.infer<typeof SecurityGroupSchema>;

/** One page of security groups (spec: SecurityGroups). */
export const SecurityGroupsPageSchema = z.object({
  /** Groups of the current page. */
  data: listOf(SecurityGroupSchema).describe("Groups of the current page"),
  ...PageInfoShape,
});
export type SecurityGroupsPage = z.infer<typeof SecurityGroupsPageSchema>;

const PORT_RANGE = /^(\d{1,5})(?:-(\d{1,5}))?$/;
const DPORT_ERROR = 'expected a port 1-65535 ("22") or a range low-high ("8000-8080")';

/** A rule in a request (project decision). */
export const RuleInputSchema = z
  .strictObject({
    /** `ACCEPT` or `DROP`. */
    action: z.enum(RULE_ACTIONS).describe("ACCEPT or DROP"),
    /** `tcp`, `udp`, `icmp` or `any`. */
    proto: z.enum(RULE_PROTOCOLS).describe("tcp, udp, icmp or any"),
    /**
     * Destination port (`"22"`) or inclusive range (`"8000-8080"`), 1–65535. Only for tcp and
     * udp; left out, the rule covers every port.
     */
    dport: z
      .string({ error: expected("a string") })
      .optional()
      .describe(DPORT_ERROR),
    /** Source as an IPv4 or IPv6 CIDR (`10.0.0.0/8`, `::/0`); left out, any source. */
    source: z
      .union([z.cidrv4(), z.cidrv6()], {
        error: expected("an IPv4 or IPv6 CIDR, for example 10.0.0.0/8"),
      })
      .optional()
      .describe("Source CIDR"),
  })
  .superRefine((rule, ctx) => {
    if (rule.dport === undefined) return;
    if (rule.proto === "icmp" || rule.proto === "any") {
      ctx.addIssue({
        code: "custom",
        path: ["dport"],
        message: `must be left out for proto ${rule.proto}`,
      });
      return;
    }
    const match = PORT_RANGE.exec(rule.dport);
    const low = Number(match?.[1]);
    const high = match?.[2] === undefined ? low : Number(match[2]);
    if (!match || low < 1 || high > 65535 || low > high) {
      ctx.addIssue({ code: "custom", path: ["dport"], message: DPORT_ERROR });
    }
  });
export type RuleInput = z.input<typeof RuleInputSchema>;

/**
 * Body of `POST /v1/firewall/groups` and `POST /v1/firewall/groups/:id` (project decision). An
 * update replaces the group as a whole, rules included; left-out `description` becomes empty.
 */
export const SecurityGroupRequestSchema = z.strictObject({
  /** Group name. */
  name: NameInputSchema.describe("Group name"),
  /** Description. */
  description: DescriptionInputSchema.optional().describe("Description"),
  /** The complete list of rules, in order. */
  rules: z.array(RuleInputSchema, { error: expected("an array of rules") }).describe("Rules"),
});
export type SecurityGroupRequest = z.input<typeof SecurityGroupRequestSchema>;

/** Body of `POST /v1/firewall/groups/servers/:id` (project decision). */
export const UpdateServerFirewallRequestSchema = z.strictObject({
  /** Whether the server's firewall is enabled. */
  firewall_enabled: z.boolean({ error: expected("a boolean") }).describe("Enable the firewall"),
});
export type UpdateServerFirewallRequest = z.input<typeof UpdateServerFirewallRequestSchema>;

/** The spec's name for the paged list of groups. */
export const SecurityGroupsSchema = SecurityGroupsPageSchema;
export type SecurityGroups = SecurityGroupsPage;
