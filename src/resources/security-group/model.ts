/**
 * Rule order is kept: overlapping ACCEPT and DROP rules mean different things in different orders.
 * An exact repeat is dropped: it can never match anything the first did not.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { DescriptionInputSchema, expected, NameInputSchema } from "../../api/schemas/common";
import {
  RULE_ACTIONS,
  RULE_PROTOCOLS,
  type Rule,
  type SecurityGroup,
  type SecurityGroupRequest,
} from "../../api/schemas/firewall";
import { AdoptIdSchema } from "../adopt";
import { described, sameText } from "../common";
import type { Complete, FieldTable } from "../kind";
import { normaliseCidr } from "./cidr";

export interface RuleOutputs {
  action: (typeof RULE_ACTIONS)[number];
  proto: (typeof RULE_PROTOCOLS)[number];
  dport?: string;
  source?: string;
}

const DPORT_MESSAGE = 'expected a port from 1 to 65535 ("22") or a range low-high ("8000-8080")';

/** `"22"`, `22`, `" 8000 - 8080 "` → `"22"`, `"8000-8080"`; `"22-22"` → `"22"`; else `undefined`. */
function normaliseDport(value: string | number): string | undefined {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(String(value).replace(/\s+/g, ""));
  const low = Number(match?.[1]);
  const high = Number(match?.[2] ?? low);
  if (match === null || low < 1 || high > 65535 || low > high) return undefined;
  return low === high ? String(low) : `${low}-${high}`;
}

const RuleInputSchema = z
  .strictObject(
    {
      action: z
        .string({ error: expected('"ACCEPT" or "DROP"') })
        .transform((a) => a.trim().toUpperCase())
        .pipe(z.enum(RULE_ACTIONS, { error: 'expected "ACCEPT" or "DROP"' })),
      proto: z
        .string({ error: expected('"tcp", "udp", "icmp" or "any"') })
        .transform((p) => p.trim().toLowerCase())
        .pipe(z.enum(RULE_PROTOCOLS, { error: 'expected "tcp", "udp", "icmp" or "any"' })),
      // Each field's own rule is checked with it, so that a rule with several mistakes (a port
      // out of range and no proto) reports all of them; the rule across fields comes after.
      dport: z
        .union([z.string(), z.int()], { error: DPORT_MESSAGE })
        .refine((dport) => normaliseDport(dport) !== undefined, { error: DPORT_MESSAGE })
        .optional(),
      source: z
        .string({ error: expected("a CIDR block such as 10.0.0.0/8") })
        .check((ctx) => {
          const source = normaliseCidr(ctx.value);
          if (!source.ok)
            ctx.issues.push({ code: "custom", message: source.message, input: ctx.value });
        })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}: a rule has action, proto, dport and source`
          : issue.input === undefined
            ? "is required"
            : "expected a rule {action, proto, dport?, source?}",
    },
  )
  .transform((rule, ctx): RuleOutputs => {
    if (rule.dport !== undefined && (rule.proto === "icmp" || rule.proto === "any")) {
      ctx.addIssue({
        code: "custom",
        path: ["dport"],
        message: `must be left out for proto "${rule.proto}", which has no ports`,
      });
    }
    // Each field is valid here: the reading of a stored rule is the normalisation.
    return ruleFromApi({ ...rule, dport: rule.dport?.toString() });
  });

/** Rules without exact repeats, the first of each kept in place. */
export function withoutRepeats(rules: readonly RuleOutputs[]): RuleOutputs[] {
  return rules.filter((rule, i) => rules.findIndex((r) => isDeepStrictEqual(r, rule)) === i);
}

export const SecurityGroupInputsSchema = z.object({
  name: NameInputSchema,
  description: DescriptionInputSchema.optional(),
  rules: z
    .array(RuleInputSchema, { error: expected("a list of rules (may be empty)") })
    .transform(withoutRepeats),
  adoptId: AdoptIdSchema.optional(),
});
export type SecurityGroupInputs = z.output<typeof SecurityGroupInputsSchema>;

export interface SecurityGroupOutputs {
  securityGroupId: number;
  name: string;
  description: string;
  rules: RuleOutputs[];
}

/** A value this version cannot read is kept as it came: drift, not a silent rewrite. */
export function ruleFromApi(
  rule: Pick<Rule, "action" | "proto" | "dport" | "source">,
): RuleOutputs {
  const { dport, source } = rule;
  const cidr = source ? normaliseCidr(source) : undefined;
  return {
    action: rule.action.trim().toUpperCase(),
    proto: rule.proto.trim().toLowerCase(),
    ...(dport ? { dport: normaliseDport(dport) ?? dport } : {}),
    ...(source ? { source: cidr?.ok ? cidr.cidr : source } : {}),
  } as RuleOutputs;
}

/** Stored rules (the state may hold anything), read as the service's are; else `undefined`. */
const StoredRulesSchema = z.array(
  z
    .object({
      action: z.string(),
      proto: z.string(),
      dport: z.coerce.string().optional(),
      source: z.string().optional().catch(undefined),
    })
    .transform(ruleFromApi),
);

/** Same rules in the same order, whatever the spelling. */
export function sameRules(a: unknown, b: unknown): boolean {
  const before = StoredRulesSchema.safeParse(a).data;
  const after = StoredRulesSchema.safeParse(b).data;
  return before !== undefined && after !== undefined && isDeepStrictEqual(before, after);
}

export const SECURITY_GROUP_FIELDS: FieldTable<SecurityGroupInputs> = {
  name: {},
  description: { equals: sameText },
  rules: { equals: sameRules },
};

export function toApi(inputs: SecurityGroupInputs): Complete<SecurityGroupRequest> {
  return {
    name: inputs.name,
    // Always sent: an update without it would keep a description the program removed.
    description: inputs.description ?? "",
    rules: inputs.rules.map((rule) => ({ ...rule })),
  };
}

export function fromApi(group: SecurityGroup): SecurityGroupOutputs {
  return { securityGroupId: group.id, ...described(group), rules: group.rules.map(ruleFromApi) };
}

export function outputsFromInputs(id: number, inputs: SecurityGroupInputs): SecurityGroupOutputs {
  return { securityGroupId: id, ...described(inputs), rules: inputs.rules };
}
