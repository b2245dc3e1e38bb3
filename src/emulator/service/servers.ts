/**
 * Servers: the operations the servers routes, the seeders and the admin API share. A server is
 * made with its order (and invoice item), its address and its firewall attachments, in
 * `provisioning`; the caller starts its lifecycle or, in a seeder, sets the status it should have.
 */
import type { FieldError } from "../../api/schemas/common";
import type { CreateServerRequest } from "../../api/schemas/servers";
import type { PlanRecord } from "../data";
import { invalidFields } from "../http/http-errors";
import type { AccountState, SecurityGroupRecord, ServerRecord, ServerStatus } from "../store/state";
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
