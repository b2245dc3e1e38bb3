/**
 * What runs in one account: one list per kind through the package's client (its rate budget,
 * retries and errors), the security groups page by page, the attachments read off the groups'
 * list (no request of their own). Users cannot be listed: the API has no such call.
 *
 * A list that fails (a refused key, a missing permission, faults past the client's retries) leaves
 * its kind incomplete with the error's message; the objects of the pages read before stay known.
 */
import type { CloudInfraClient } from "../api/client";
import { UnauthorizedError } from "../api/errors";
import { iteratePages } from "../api/paging";
import type { PageParams } from "../api/schemas/common";
import { messageOf } from "../lib/message";
import type { ResourceKind } from "../resources/kinds";
import { attachmentId } from "../resources/security-group-attachment/model";

/** A reference from an object to another one of the account, by the field that holds it. */
export interface LiveReference {
  /** The Pulumi input that holds it: `securityGroupId`, `serverIds`, ... */
  field: string;
  kind: ResourceKind;
  id: string;
}

/** One object of the account. */
export interface LiveObject {
  kind: ResourceKind;
  id: string;
  /** The object's name at the service (an attachment: `<group> on <server>`). */
  name: string;
  /** What it refers to. */
  references: LiveReference[];
  /** Why an import of it would not leave a program without a diff, when it would not. */
  notImportable?: string;
}

/** One kind of one account, as listed. */
export interface KindListing {
  kind: ResourceKind;
  /** False for users: the API has no call that lists them. */
  listable: boolean;
  /** Every object was read. */
  complete: boolean;
  objects: LiveObject[];
  /** List requests sent for it (pages); retries are the client's and not counted. */
  requests: number;
  /** Why it is incomplete. */
  error?: string;
  /** The API refused the key (401): nothing of the account can be read with it. */
  keyRefused?: boolean;
}

/** Paging of the security groups: the largest page the API serves. */
const GROUP_PAGE: PageParams = { limit: 100 };

function failure(err: unknown): { error: string; keyRefused?: true } {
  const error = messageOf(err);
  return err instanceof UnauthorizedError ? { error, keyRefused: true } : { error };
}

/** The listing of a kind from one call: complete, or incomplete with the call's error. */
async function listed(
  kind: ResourceKind,
  call: () => Promise<LiveObject[]>,
  requests = 1,
): Promise<KindListing> {
  try {
    return { kind, listable: true, complete: true, objects: await call(), requests };
  } catch (err) {
    return { kind, listable: true, complete: false, objects: [], requests, ...failure(err) };
  }
}

function serverRefusal(status: string): string | undefined {
  if (status === "error") return 'in status "error" (its provisioning failed): delete it instead';
  if (status === "deleting") return 'in status "deleting": it is going away';
  return undefined;
}

/** Every kind of the account behind `client`, in the order an import must follow. */
export async function listAccount(client: CloudInfraClient): Promise<KindListing[]> {
  const servers = listed("Server", async () =>
    (await client.servers.list()).map((s) => {
      const o: LiveObject = {
        kind: "Server",
        id: String(s.id),
        name: s.user_defined_name,
        references: [],
      };
      const refusal = serverRefusal(s.status);
      if (refusal !== undefined) o.notImportable = refusal;
      return o;
    }),
  );
  const keys = listed("SshKey", async () =>
    (await client.keys.list()).map((k) => ({
      kind: "SshKey" as const,
      id: String(k.id),
      name: k.name,
      references: [],
    })),
  );
  // System roles belong to the service, not to the account: no stack can manage them.
  const roles = listed("Role", async () =>
    (await client.iam.listRoles())
      .filter((r) => !r.system_role)
      .map((r) => ({ kind: "Role" as const, id: String(r.id), name: r.name, references: [] })),
  );
  const tags = listed("Tag", async () =>
    (await client.tags.list()).map((t) => ({
      kind: "Tag" as const,
      id: String(t.id),
      name: t.name,
      references: t.servers.map((s) => ({
        field: "serverIds",
        kind: "Server" as const,
        id: String(s.id),
      })),
    })),
  );
  const groups = listGroups(client);
  const [groupListing, attachments] = await groups;
  return [
    await keys,
    groupListing,
    await roles,
    await servers,
    await tags,
    attachments,
    { kind: "User", listable: false, complete: false, objects: [], requests: 0 },
  ];
}

/** The groups page by page, and the attachments their pages name. */
async function listGroups(client: CloudInfraClient): Promise<[KindListing, KindListing]> {
  const groups: LiveObject[] = [];
  const attachments: LiveObject[] = [];
  let requests = 0;
  let failed: ReturnType<typeof failure> | undefined;
  try {
    const page = (params: PageParams) => {
      requests += 1;
      return client.firewall.listPage(params);
    };
    for await (const g of iteratePages(page, (p) => p.data, GROUP_PAGE)) {
      groups.push({ kind: "SecurityGroup", id: String(g.id), name: g.name, references: [] });
      for (const s of g.servers) {
        attachments.push({
          kind: "SecurityGroupAttachment",
          id: attachmentId({ securityGroupId: g.id, serverId: s.id }),
          name: `${g.name} on ${s.user_defined_name}`,
          references: [
            { field: "securityGroupId", kind: "SecurityGroup", id: String(g.id) },
            { field: "serverId", kind: "Server", id: String(s.id) },
          ],
        });
      }
    }
  } catch (err) {
    failed = failure(err);
  }
  const of = (kind: ResourceKind, objects: LiveObject[]): KindListing => ({
    kind,
    listable: true,
    complete: failed === undefined,
    objects,
    requests: 0,
    ...failed,
  });
  return [{ ...of("SecurityGroup", groups), requests }, of("SecurityGroupAttachment", attachments)];
}
