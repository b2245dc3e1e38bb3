/**
 * The service refuses (409) to delete a group while a server is attached. During a `destroy` the
 * engine may delete such a server meanwhile (when it lists the group's id as a literal): waited for.
 */
import { ConflictError } from "../../api/errors";
import type { Server } from "../../api/schemas/servers";
import { serverWatch, waitForServerStatus } from "../server/watch";
import type { ProviderSession } from "../session";

/** How long a delete waits for attached servers that are being deleted. */
const DETACH_WAIT_MS = 10 * 60_000;

function stillAttachedError(groupId: number, holding: Server[], conflict: ConflictError): Error {
  const which = holding
    .map((s) => `server ${s.id} (${JSON.stringify(s.user_defined_name)}, ${s.status})`)
    .join(", ");
  return new Error(
    `security group ${groupId} is still attached to ${which}, which nothing in this operation is deleting: a server this stack does not manage (made outside it, or left behind by an earlier failed run), or one that does not depend on this group. Detach the group from it (its SecurityGroupAttachment, its securityGroupIds, or the console) or delete that server, then run the command again (${conflict.message})`,
    { cause: conflict },
  );
}

/** Fails naming every attached server not being deleted; a 404 (gone) is the builder's success. */
export async function deleteWhenDetached(session: ProviderSession, id: number): Promise<void> {
  const { client } = session;
  const deadlineAt = Date.now() + DETACH_WAIT_MS;
  const gone = { action: "settle", target: "gone", deadlineAt } as const;
  let detachedMeanwhile = false;
  for (;;) {
    const conflict = await client.firewall.delete(id).then(
      () => undefined,
      (err: unknown) => (err instanceof ConflictError ? err : Promise.reject(err)),
    );
    if (conflict === undefined) return;
    const group = await client.firewall.get(id);
    const watch = serverWatch(session);
    const attached = await Promise.all(group.servers.map((s) => watch.read(s.id)));
    const present = attached.filter((s) => s !== undefined);
    const holding = present.filter((s) => s.status !== "deleting");
    if (holding.length > 0) throw stillAttachedError(id, holding, conflict);
    // Detached between the 409 and the read: once more. A second 409 is not about servers.
    const detached = group.servers.length === 0;
    if (detached ? detachedMeanwhile : Date.now() >= deadlineAt) throw conflict;
    detachedMeanwhile ||= detached;
    for (const s of present) await waitForServerStatus(watch, s.id, { ...gone, initial: s });
  }
}
