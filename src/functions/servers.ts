/**
 * `getServer`: one server as the service shows it now (`GET /v1/servers/:id`); `getServers`: the
 * servers of the account that pass a filter (`GET /v1/servers`). `getServer` shows a server, with what other
 * resources change on it: the tags it carries and every security group attached to it. A
 * `Server` resource's outputs leave those out on purpose: a refresh straight after the `up` that
 * tagged the server would otherwise report them as a change.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Server } from "../api/schemas/servers";
import { idReference } from "../resources/ids";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  type ListedIds,
  listResult,
  matchingName,
  type NameRegexArgs,
  type NameRegexOutputArgs,
  orUndefined,
  outputOf,
  parseArgs,
  RegexArg,
} from "./common";

/** A tag a server carries. */
export interface ServerTagInfo {
  /** Tag id. */
  id: number;
  /** Tag name. */
  name: string;
  /** Colour as the service spells it, `#RRGGBB`. */
  color: string;
}

/** Result of {@link getServer}: the server as the service shows it now. */
export interface GetServerResult {
  /** Server id. */
  id: number;
  /** The server's name. */
  name: string;
  /** Plan id. */
  planId: number;
  /** The operating system the service reports (the image name); absent when it reports none. */
  os?: string;
  /** `running`, `stopped`, `provisioning`, `error`, ... */
  status: string;
  /** When the status last changed (RFC 3339); absent when the service says nothing. */
  statusDate?: string;
  /** The IP address; absent until the service assigns one. */
  ip?: string;
  /** Whether the firewall is on. */
  firewallEnabled: boolean;
  /** The order that bought the server; absent when the service says nothing. */
  orderId?: number;
  /** The VM id in the underlying infrastructure; absent for dedicated servers. */
  vmId?: number;
  /** The tags the server carries, by ascending id. */
  tags: ServerTagInfo[];
  /** Every security group attached to the server, however it was attached, ascending. */
  securityGroupIds: number[];
  /** When the server was created (RFC 3339). */
  createdAt: string;
}

/** Arguments of {@link getServer}. */
export interface GetServerArgs {
  /** The server's id: a number or its decimal text (`server.id` works). */
  id: number | string;
}

/** {@link GetServerArgs} whose values may be Outputs. */
export interface GetServerOutputArgs {
  /** See {@link GetServerArgs.id}. */
  id: pulumi.Input<number | string>;
}

export const GetServerArgsSchema = z.strictObject({ id: idReference("a server id") });

/** Maps a server of the wire to its Pulumi-facing form. */
export function serverFromApi(server: Server): GetServerResult {
  return definedOnly({
    id: server.id,
    name: server.user_defined_name,
    planId: server.plan_id,
    os: orUndefined(server.data.find((d) => d.name === "os")?.value),
    status: server.status,
    statusDate: orUndefined(server.status_date),
    ip: server.ip === "" ? undefined : orUndefined(server.ip),
    firewallEnabled: server.firewall_enabled,
    orderId: orUndefined(server.order_id),
    vmId: orUndefined(server.vm_id),
    tags: [...server.tags]
      .sort((a, b) => a.id - b.id)
      .map((t) => ({ id: t.id, name: t.name, color: t.color })),
    securityGroupIds: server.security_groups.map((g) => g.id).sort((a, b) => a - b),
    createdAt: server.created_at,
  });
}

/**
 * One server as the service shows it at the time of the call, tags and attached security groups
 * included. To see the tags or attachments this program makes, make the call depend on them
 * (`getServerOutput({ id: web.id }, { dependsOn: [tag] })`).
 *
 * @example
 * const live = cloudinfra.getServerOutput({ id: web.id }, { dependsOn: [webTag] });
 * export const webTags = live.tags.apply((tags) => tags.map((t) => t.name));
 */
export async function getServer(
  args: GetServerArgs,
  opts?: DataSourceOptions,
): Promise<GetServerResult> {
  const { id } = parseArgs("getServer", GetServerArgsSchema, args);
  return serverFromApi(await callApi("getServer", (client, o) => client.servers.get(id, o), opts));
}

/** {@link getServer} with arguments that may be Outputs. */
export function getServerOutput(
  args: GetServerOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetServerResult> {
  return outputOf(args, opts, (resolved, o) => getServer(resolved, o));
}

/** Filters of {@link getServers}; a server must pass every filter given. */
export interface GetServersArgs extends NameRegexArgs {
  /** Only servers that carry the tag of this name (compared regardless of letter case, as the service compares tag names). */
  tag?: string | undefined;
  /** Only servers in this status (`running`, `stopped`, `provisioning`, `error`, ...). */
  status?: string | undefined;
}

/** {@link GetServersArgs} whose values may be Outputs. */
export interface GetServersOutputArgs extends NameRegexOutputArgs {
  /** See {@link GetServersArgs.tag}. */
  tag?: pulumi.Input<string | undefined>;
  /** See {@link GetServersArgs.status}. */
  status?: pulumi.Input<string | undefined>;
}

/** Result of {@link getServers}. */
export interface GetServersResult extends ListedIds {
  /** The matching servers, by ascending id, each as {@link getServer} shows it. */
  servers: GetServerResult[];
}

export const GetServersArgsSchema = z.strictObject({
  nameRegex: RegexArg.optional(),
  tag: z.string({ error: "expected a tag name" }).optional(),
  status: z.string({ error: "expected a status such as running" }).optional(),
});

/**
 * The servers of the account that pass every given filter (all of them without filters), from
 * one list call. Never fails because nothing matched: the lists are then empty.
 *
 * @example
 * const web = await cloudinfra.getServers({ tag: "web", status: "running" });
 * export const webIps = web.servers.map((s) => s.ip);
 */
export async function getServers(
  args?: GetServersArgs,
  opts?: DataSourceOptions,
): Promise<GetServersResult> {
  const filter = parseArgs("getServers", GetServersArgsSchema, args);
  const listed = await callApi("getServers", (client, o) => client.servers.list(o), opts);
  const tag = filter.tag?.toLowerCase();
  const servers = matchingName(listed, filter.nameRegex, (s) => s.user_defined_name)
    .filter((s) => filter.status === undefined || s.status === filter.status)
    .filter((s) => tag === undefined || s.tags.some((t) => t.name.toLowerCase() === tag))
    .map(serverFromApi)
    .sort((a, b) => a.id - b.id);
  return listResult("servers", servers);
}

/** {@link getServers} with arguments that may be Outputs. */
export function getServersOutput(
  args?: GetServersOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetServersResult> {
  return outputOf(args ?? {}, opts, (resolved, o) => getServers(resolved, o));
}
