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
import { AdoptIdSchema } from "../adopt";
import { diffInputs, type Props } from "../common";
import { idReference } from "../ids";
import type { FieldTable } from "../kind";

/** The power states a program can ask for. */
export const POWER_STATES = ["running", "stopped"] as const;
export type PowerState = (typeof POWER_STATES)[number];

/** Defaults of `timeouts`, one per operation. */
export const DEFAULT_TIMEOUTS = { create: "10m", update: "10m", delete: "10m" } as const;
export type TimeoutKind = keyof typeof DEFAULT_TIMEOUTS;

const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/;

/** Milliseconds of a duration as Go and Terraform write them (`1h30m`, `500ms`), else `undefined`. */
function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null || text.trim() === "") return undefined;
  const [, h, m, s, ms] = match;
  return (
    Number(h ?? 0) * 3_600_000 + Number(m ?? 0) * 60_000 + Number(s ?? 0) * 1000 + Number(ms ?? 0)
  );
}

/** `"1m05s"`, `"850ms"`: an elapsed time for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const totalSeconds = Math.floor(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m${String(s).padStart(2, "0")}s`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${(ms / 1000).toFixed(1)}s`;
}

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

/** Ids in ascending order: the order of a set never causes a diff. */
function idSet(what: string, article: "a" | "an") {
  return z
    .array(idReference(`${article} ${what}`), { error: `expected a list of ${what}s` })
    .refine((ids) => new Set(ids).size === ids.length, { error: "must not contain duplicates" })
    .transform((ids) => [...ids].sort((a, b) => a - b));
}

/** Inputs as Pulumi stores them: validated and normalised by `check`. */
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

/** The inputs that describe the server; `adoptId` only says where `create` starts from. */
export const INPUT_FIELDS = Object.keys(ServerInputsSchema.shape).filter(
  (field) => field !== "adoptId",
) as Exclude<keyof ServerInputs, "adoptId">[];

function sameIdSet(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === null ? [] : v);
  return isDeepStrictEqual(norm(a), norm(b));
}

/**
 * `powerState` as `check` stores it: `"running"` when the program leaves it out, except for a
 * server it adopts (`adoptId`) or adopted before (its stored inputs have none): that server is left
 * as it is, running or stopped, until the program says otherwise.
 */
export function withPowerStateDefault(inputs: Props, olds: Props): Props {
  if (inputs["powerState"] !== undefined) return inputs;
  const adopting = inputs["adoptId"] !== undefined;
  const adoptedBefore = Object.keys(olds).length > 0 && olds["powerState"] === undefined;
  return adopting || adoptedBefore ? inputs : { ...inputs, powerState: "running" };
}

/** Equal, or the program leaves the power state alone (an adopted server's, see above). */
function samePowerState(a: unknown, b: unknown): boolean {
  return b === undefined || a === b;
}

/**
 * How each input changes. Plan, image and SSH keys are fixed at creation (the API has no call to
 * change them). Security groups change in place through the attach/detach endpoints; the
 * resource manages only the groups it lists, so SecurityGroupAttachment resources on the same
 * server do not fight with it.
 */
export const FIELDS: FieldTable<ServerInputs> = {
  name: {},
  planId: { replaceOnChange: true },
  image: { replaceOnChange: true },
  sshKeyIds: { replaceOnChange: true, equals: sameIdSet },
  securityGroupIds: { equals: sameIdSet },
  firewallEnabled: {},
  powerState: { equals: samePowerState, afterCreate: true },
  timeouts: {},
};

/**
 * The diff Pulumi sees. Besides the field table, a server whose provisioning failed (status
 * `error` in the old state) is replaced: it can neither start nor be repaired, so the next `up`
 * swaps it for a working one, as a tainted resource would be in Terraform.
 */
export function diffServer(olds: Props, news: Props): pulumi.dynamic.DiffResult {
  const result = diffInputs(olds, news, FIELDS);
  if (olds["status"] === "error") {
    return { ...result, changes: true, replaces: [...(result.replaces ?? []), "status"] };
  }
  return result;
}

/** The request that creates exactly one server for these inputs. */
export function toApi(inputs: ServerInputs): CreateServerRequest {
  return {
    plan_id: inputs.planId,
    image: inputs.image,
    user_defined_name: inputs.name,
    ...(inputs.sshKeyIds === undefined ? {} : { ssh_key_ids: inputs.sshKeyIds }),
    ...(inputs.securityGroupIds === undefined
      ? {}
      : { security_group_ids: inputs.securityGroupIds }),
    firewall_enabled: inputs.firewallEnabled,
    quantity: 1,
  };
}

/** The image a server runs, from its `os` metadata entry. */
export function osOf(server: Server): string | undefined {
  const entry = server.data.find((d) => d.name === "os");
  return entry?.value ?? undefined;
}

/** Where a wait ends: a settled status, or `gone` (the server answers 404). */
export type WaitTarget = PowerState | "gone";

/** Transient statuses that settle by themselves in `target`, from the transition table. */
export function statusesOnTheWay(target: WaitTarget): Set<string> {
  const on = new Set<string>(target === "running" ? ["provisioning"] : []);
  for (const t of Object.values(MANAGEMENT_TRANSITIONS)) {
    if ((t.to ?? "gone") === target) on.add(t.via);
  }
  return on;
}

/** Where a status that is on its way somewhere settles by itself (`stopping` → `stopped`). */
export function settlesIn(status: string): WaitTarget | undefined {
  return (["running", "stopped", "gone"] as const).find((t) => statusesOnTheWay(t).has(status));
}

/**
 * The power state a status is at or heading to; `undefined` for `error`, `deleting` and
 * statuses this version does not know, where neither answer would be true.
 */
export function powerStateOf(status: string): PowerState | undefined {
  const to = status === "running" || status === "stopped" ? status : settlesIn(status);
  return to === "gone" ? undefined : to;
}

/**
 * Reads whatever valid inputs a property bag holds (old state, possibly written by an older
 * version), field by field: a field that no longer validates is left out rather than failing a
 * refresh or a delete.
 */
export function storedInputs(props: Props | undefined): Partial<ServerInputs> {
  const out: Record<string, unknown> = {};
  if (props === undefined) return out;
  for (const field of INPUT_FIELDS) {
    if (props[field] === undefined) continue;
    const parsed = ServerInputsSchema.shape[field].safeParse(props[field]);
    if (parsed.success) out[field] = parsed.data;
  }
  return out as Partial<ServerInputs>;
}

/**
 * The inputs as they are live: what a refresh records, so that drift shows as exactly the
 * changed field. SSH keys and timeouts cannot be read back and keep their stored value; listed
 * security groups that were detached meanwhile drop out of the list (groups attached by other
 * means are not this resource's business and never appear).
 */
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

/**
 * Pulumi outputs from the service's answer; never holds `undefined` (the host cannot send it).
 *
 * Only what this resource itself decides, or the service alone changes, is an output: the tags
 * and the attachments that other resources make after the server (`getServer` reports them)
 * would make the first refresh after an `up` differ from what the create recorded, which the
 * engine's legacy refresh diff (`PULUMI_ENABLE_LEGACY_REFRESH_DIFF`) reports as a change.
 */
export function fromApi(server: Server, stored: Partial<ServerInputs>): Props {
  const reported = {
    ip: server.ip === "" ? undefined : server.ip,
    statusDate: server.status_date,
    os: osOf(server),
    orderId: server.order_id,
    vmId: server.vm_id,
  };
  const out: Props = {
    ...liveInputs(server, stored),
    serverId: server.id,
    status: server.status,
    createdAt: server.created_at,
  };
  for (const [key, value] of Object.entries(reported)) if (value != null) out[key] = value;
  return out;
}

/** The input properties of an output bag (what `read` reports as the live inputs). */
export function inputsOf(outputs: Props): Props {
  const out: Props = {};
  for (const field of INPUT_FIELDS) if (outputs[field] !== undefined) out[field] = outputs[field];
  return out;
}

/** Milliseconds allowed for one operation, from `timeouts` or the default. */
export function timeoutMs(inputs: Partial<ServerInputs>, kind: TimeoutKind): number {
  const text = inputs.timeouts?.[kind] ?? DEFAULT_TIMEOUTS[kind];
  return parseDuration(text) ?? (parseDuration(DEFAULT_TIMEOUTS[kind]) as number);
}

/** `timeouts.create (now 10m, the default)`: the setting that limits a wait, for its error. */
export function timeoutSetting(inputs: Partial<ServerInputs>, kind: TimeoutKind): string {
  const given = inputs.timeouts?.[kind];
  return given === undefined
    ? `timeouts.${kind} (now ${DEFAULT_TIMEOUTS[kind]}, the default)`
    : `timeouts.${kind} (now ${given})`;
}
