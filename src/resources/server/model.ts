/** The Server's model: input schema, field table, statuses, and the wire ⇄ Pulumi mappings. */
import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { NameInputSchema } from "../../api/schemas/common";
import {
  type CreateServerRequest,
  MANAGEMENT_TRANSITIONS,
  type Server,
} from "../../api/schemas/servers";
import { definedOnly } from "../../lib/defined";
import { formatDuration, parseDuration } from "../../lib/duration";
import { AdoptIdSchema } from "../adopt";
import { diffInputs, type OperationLimits, type Props } from "../common";
import { idReference } from "../ids";
import type { Complete, Deadline, FieldTable } from "../kind";

const POWER_STATES = ["running", "stopped"] as const;
export type PowerState = (typeof POWER_STATES)[number];

export const DEFAULT_TIMEOUTS = { create: "10m", update: "10m", delete: "10m" } as const;

const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const DurationSchema = z
  .string({ error: 'expected a duration such as "90s", "10m" or "1h30m"' })
  .refine((text) => parseDuration(text) !== undefined, {
    error: 'expected a duration such as "90s", "10m" or "1h30m" (units h, m, s, ms)',
    abort: true,
  })
  .refine((text) => (parseDuration(text) ?? 0) > 0, { error: "must be longer than zero" })
  .refine((text) => (parseDuration(text) ?? 0) <= MAX_TIMEOUT_MS, {
    error: "must be at most 24h",
  });

/** Sorted: the order of a set never causes a diff. */
function idSet(what: string, article: "a" | "an") {
  return z
    .array(idReference(`${article} ${what}`), { error: `expected a list of ${what}s` })
    .refine((ids) => new Set(ids).size === ids.length, { error: "must not contain duplicates" })
    .transform((ids) => [...ids].sort((a, b) => a - b));
}

export const ServerInputsSchema = z.object({
  name: NameInputSchema,
  planId: idReference("a plan id"),
  image: z
    .string({ error: 'expected an image name such as "ubuntu-24.04"' })
    .trim()
    .min(1, { error: 'must not be empty: give an image name such as "ubuntu-24.04"' }),
  sshKeyIds: idSet("SSH key id", "an").optional(),
  securityGroupIds: idSet("security group id", "a").optional(),
  firewallEnabled: z.boolean({ error: "expected true or false" }).default(false),
  // Defaulted by `check` ({@link withPowerStateDefault}), not here: an adopted server keeps its own.
  powerState: z.enum(POWER_STATES, { error: 'expected "running" or "stopped"' }).optional(),
  timeouts: z
    .strictObject(
      {
        create: DurationSchema.optional(),
        update: DurationSchema.optional(),
        delete: DurationSchema.optional(),
      },
      { error: "expected an object with create, update and delete durations" },
    )
    .optional(),
  adoptId: AdoptIdSchema.optional(),
});
export type ServerInputs = z.output<typeof ServerInputsSchema>;

function sameIdSet(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a ?? [], b ?? []);
}

/** `"running"` when left out, except on a server adopted now or before: that one keeps its own. */
export function withPowerStateDefault(inputs: Props, olds: Props): Props {
  if (inputs["powerState"] !== undefined) return inputs;
  const adopting = inputs["adoptId"] !== undefined;
  const adoptedBefore = Object.keys(olds).length > 0 && olds["powerState"] === undefined;
  return adopting || adoptedBefore ? inputs : { ...inputs, powerState: "running" };
}

/** The API has no call to change plan, image or SSH keys. Only the listed groups are managed. */
export const FIELDS: FieldTable<ServerInputs> = {
  name: {},
  planId: { replaceOnChange: true },
  image: { replaceOnChange: true },
  sshKeyIds: { replaceOnChange: true, equals: sameIdSet },
  securityGroupIds: { equals: sameIdSet },
  firewallEnabled: {},
  powerState: { equals: (a, b) => b === undefined || a === b, afterCreate: true },
  timeouts: {},
};

/** Every input but `adoptId`, which only says where `create` starts from. */
export const INPUT_FIELDS = Object.keys(FIELDS) as (keyof typeof FIELDS)[];

/** A server whose provisioning failed can neither start nor be repaired: it is replaced. */
export function diffServer(olds: Props, news: Props): pulumi.dynamic.DiffResult {
  const result = diffInputs(olds, news, FIELDS);
  if (olds["status"] !== "error") return result;
  return { ...result, changes: true, replaces: [...(result.replaces ?? []), "status"] };
}

export function toApi(inputs: ServerInputs): Complete<CreateServerRequest> {
  return {
    plan_id: inputs.planId,
    image: inputs.image,
    user_defined_name: inputs.name,
    ssh_key_ids: inputs.sshKeyIds,
    security_group_ids: inputs.securityGroupIds,
    firewall_enabled: inputs.firewallEnabled,
    quantity: 1,
  };
}

export function osOf(server: Server): string | undefined {
  return server.data.find((d) => d.name === "os")?.value ?? undefined;
}

/** Where a wait ends: a settled status, or `gone` (the server answers 404). */
export type WaitTarget = PowerState | "gone";

const SETTLES_IN = new Map<string, string>([
  ["provisioning", "running"],
  ...Object.values(MANAGEMENT_TRANSITIONS).map((t) => [t.via, t.to ?? "gone"] as const),
]);

/** Where a transient status settles by itself (`stopping` → `stopped`). */
export function settlesIn(status: string): WaitTarget | undefined {
  const to = SETTLES_IN.get(status);
  return to === "running" || to === "stopped" || to === "gone" ? to : undefined;
}

/** The power state a status is at or heading to; `undefined` for `error`, `deleting`, unknown. */
export function powerStateOf(status: string): PowerState | undefined {
  const to = status === "running" || status === "stopped" ? status : settlesIn(status);
  return to === "gone" ? undefined : to;
}

/** SSH keys and timeouts cannot be read back; listed groups detached meanwhile drop out. */
export function liveInputs(server: Server, stored: Partial<ServerInputs>): Partial<ServerInputs> {
  const attached = new Set(server.security_groups.map((g) => g.id));
  return definedOnly({
    name: server.user_defined_name,
    planId: server.plan_id,
    firewallEnabled: server.firewall_enabled,
    image: osOf(server) ?? stored.image,
    sshKeyIds: stored.sshKeyIds,
    securityGroupIds: stored.securityGroupIds?.filter((id) => attached.has(id)),
    powerState: powerStateOf(server.status) ?? stored.powerState,
    timeouts: stored.timeouts,
  });
}

/** Never holds `undefined` (the host cannot send it); no tags or attachments (index.ts says why). */
export function fromApi(server: Server, stored: Partial<ServerInputs>): Props {
  const out: Props = liveInputs(server, stored);
  const reported = {
    serverId: server.id,
    status: server.status,
    createdAt: server.created_at,
    ip: server.ip === "" ? undefined : server.ip,
    statusDate: server.status_date,
    os: osOf(server),
    orderId: server.order_id,
    vmId: server.vm_id,
  };
  for (const [key, value] of Object.entries(reported)) if (value != null) out[key] = value;
  return out;
}

/** A state's inputs (`check` validated them before this version stored them). */
export function storedInputs(props: Props | undefined): Partial<ServerInputs> {
  const inputs = Object.fromEntries(INPUT_FIELDS.map((field) => [field, props?.[field]]));
  return definedOnly(inputs) as Partial<ServerInputs>;
}

/** `customTimeouts.create (now 1m30s)`: the engine's limit, as every error names it. */
export function customTimeoutsSetting(operation: string, ms: number): string {
  return `customTimeouts.${operation} (now ${formatDuration(ms)})`;
}

/**
 * The deadline of one operation: the `timeouts` input, else the engine's `customTimeouts`, else
 * the default, and the setting a wait names when it gives up.
 */
export function deadlineFor(
  inputs: Partial<ServerInputs>,
  kind: keyof typeof DEFAULT_TIMEOUTS,
  limits?: OperationLimits,
): Deadline {
  const given = inputs.timeouts?.[kind];
  const custom = limits?.timeoutMs ?? 0;
  if (given === undefined && custom > 0) {
    return { deadlineAt: Date.now() + custom, timeoutSetting: customTimeoutsSetting(kind, custom) };
  }
  const fallback = DEFAULT_TIMEOUTS[kind];
  const ms = parseDuration(given ?? fallback) ?? (parseDuration(fallback) as number);
  const timeoutSetting = `timeouts.${kind} (now ${given ?? `${fallback}, the default`})`;
  return { deadlineAt: Date.now() + ms, timeoutSetting };
}
