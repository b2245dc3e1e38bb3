/**
 * Servers: the operations the servers routes, the seeders and the admin API share. A server is
 * made with its order (and invoice item), its address and its firewall attachments, in
 * `provisioning`; the caller starts its lifecycle or, in a seeder, sets the status it should have.
 */
import type { FieldError } from "../../api/schemas/common";
import {
  type CreateServerRequest,
  MANAGEMENT_TRANSITIONS,
  type ManagementAction,
} from "../../api/schemas/servers";
import type { PlanRecord } from "../data";
import { conflict, invalidFields } from "../http/http-errors";
import type {
  AccountState,
  SecurityGroupRecord,
  ServerRecord,
  ServerStatus,
  TransientStatus,
  TransitionTarget,
} from "../store/state";
import type { Author } from "./author";
import type { Lifecycle } from "./lifecycle";
import { recordServerOrder } from "./orders";
import { unknownIdErrors } from "./validation";

/**
 * Addresses come from 10.0.0.0/8 by server id, the scheme the seed uses too: ids are global and
 * never reused, so addresses never collide across accounts, and a server keeps its address.
 */
function ipFor(serverId: number): string {
  return `10.${(serverId >> 16) & 255}.${(serverId >> 8) & 255}.${serverId & 255}`;
}

/**
 * A new server of `plan` as POST /v1/servers makes it: its order, its address, its key ids, and
 * attached to `groups`. It is inserted in `provisioning`; the caller starts its lifecycle (or, in
 * a seed file, sets the status it should have).
 */
export function insertServer(
  author: Author,
  plan: PlanRecord,
  request: Pick<CreateServerRequest, "image" | "user_defined_name" | "ssh_key_ids"> & {
    firewall_enabled?: boolean | undefined;
  },
  groups: readonly SecurityGroupRecord[],
): ServerRecord {
  const { account } = author;
  const now = author.now();
  const id = author.nextId("server");
  const server: ServerRecord = {
    id,
    unique_id: 100_000 + id,
    created_at: now,
    updated_at: now,
    ip: ipFor(id),
    user_id: author.user.id,
    // Only virtual machines have a hypervisor id; dedicated servers are bare metal.
    ...(plan.type === "VPS" ? { vm_id: 5000 + id } : {}),
    firewall_enabled: request.firewall_enabled ?? false,
    data: [{ name: "os", value: request.image }],
    plan_id: plan.id,
    image: request.image,
    ssh_key_ids: [...(request.ssh_key_ids ?? [])],
    status: "provisioning",
    status_date: now,
    user_defined_name: request.user_defined_name,
  };
  server.order_id = recordServerOrder(account, {
    userId: author.user.id,
    plan,
    serverId: id,
    now,
    nextId: author.nextId,
    countries: author.catalogue.countries,
  });
  account.servers.insert(server);
  for (const group of groups) {
    group.server_ids.push(id);
    account.security_groups.update(group);
  }
  return server;
}

/**
 * The servers POST /v1/servers makes (`quantity` of them, default 1), after checking the plan,
 * the image and every key and group id (400 naming each field at fault, nothing made).
 */
export function createServers(
  author: Author,
  body: Pick<
    CreateServerRequest,
    "plan_id" | "image" | "user_defined_name" | "ssh_key_ids" | "security_group_ids"
  > & { firewall_enabled?: boolean | undefined; quantity?: number | undefined },
): ServerRecord[] {
  const { account } = author;
  const plan = author.catalogue.plans.find((p) => p.id === body.plan_id);
  const errors: FieldError[] = [];
  if (plan === undefined) {
    errors.push({ field: "plan_id", message: `no plan ${body.plan_id}; see GET /v1/plans` });
  }
  if (!author.catalogue.images.some((image) => image.name === body.image)) {
    errors.push({ field: "image", message: `no image ${body.image}; see GET /v1/images` });
  }
  errors.push(...unknownIdErrors("ssh_key_ids", body.ssh_key_ids, account.keys, "SSH key"));
  errors.push(
    ...unknownIdErrors(
      "security_group_ids",
      body.security_group_ids,
      account.security_groups,
      "security group",
    ),
  );
  if (plan === undefined || errors.length > 0) throw invalidFields(errors);

  const groups = (body.security_group_ids ?? []).flatMap(
    (id) => account.security_groups.get(id) ?? [],
  );
  const created: ServerRecord[] = [];
  for (let i = 0; i < (body.quantity ?? 1); i++)
    created.push(insertServer(author, plan, body, groups));
  return created;
}

/**
 * Puts a server a seeder just made in `status` at once, or, for `provisioning`, starts its
 * provisioning through the lifecycle as a created server's.
 */
export function settleSeededServer(
  lifecycle: Pick<Lifecycle, "begin">,
  account: AccountState,
  server: ServerRecord,
  status: ServerStatus,
): void {
  if (status === "provisioning") {
    lifecycle.begin(account, server, "provisioning", "running");
    return;
  }
  server.status = status;
  account.servers.update(server);
}

function describeStatuses(statuses: readonly string[]): string {
  if (statuses.length <= 1) return statuses.join("");
  return `${statuses.slice(0, -1).join(", ")} or ${statuses.at(-1)}`;
}

const TRANSIENT_STATUSES: readonly TransientStatus[] = [
  "provisioning",
  "starting",
  "stopping",
  "rebooting",
  "deleting",
];

/** MANAGEMENT_TRANSITIONS types `via` as any status; the lifecycle only runs transient ones. */
function transientStatus(status: string): TransientStatus {
  const found = TRANSIENT_STATUSES.find((s) => s === status);
  if (found === undefined) throw new Error(`${status} is not a transient server status`);
  return found;
}

/** Starts a transition (the lifecycle's `begin`, bound to the server's account): its action id. */
export type StartTransition = (
  server: ServerRecord,
  transient: TransientStatus,
  target: TransitionTarget,
) => string;

/**
 * Starts management `action` on `server` (409 when its status does not accept the action) and
 * answers the action id; the server reaches the action's target later (service/lifecycle.ts).
 */
export function manageServer(
  begin: StartTransition,
  server: ServerRecord,
  action: ManagementAction,
): string {
  const transition = MANAGEMENT_TRANSITIONS[action];
  if (!transition.from.includes(server.status)) {
    throw conflict(
      `Cannot ${action} server ${server.id} while it is ${server.status}; ${action} is accepted when it is ${describeStatuses(transition.from)}`,
    );
  }
  return begin(server, transientStatus(transition.via), transition.to ?? "gone");
}

/**
 * Renames `server` (409 while it is being deleted); false when the name is unchanged or not
 * given, and nothing was recorded.
 */
export function renameServer(
  author: Pick<Author, "account" | "now">,
  server: ServerRecord,
  name: string | undefined,
): boolean {
  if (server.status === "deleting") {
    throw conflict(`Server ${server.id} is being deleted and can no longer be changed`);
  }
  if (name === undefined || name === server.user_defined_name) return false;
  server.user_defined_name = name;
  server.updated_at = author.now();
  author.account.servers.update(server);
  return true;
}
