/**
 * `getSecurityGroups`: the firewall security groups of the account (`GET /v1/firewall/groups`,
 * every page), filtered in the program.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { SecurityGroup } from "../api/schemas/firewall";
import { idReference } from "../resources/ids";
import { ruleFromApi } from "../resources/security-group/model";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  type ListedIds,
  listResult,
  matchingName,
  type NameRegexArgs,
  type NameRegexOutputArgs,
  outputOf,
  parseArgs,
  RegexArg,
} from "./common";

/** A rule of a group, spelt as a `SecurityGroup` resource's `rules` are. */
export interface SecurityGroupRuleInfo {
  /** `ACCEPT` or `DROP`. */
  action: string;
  /** `tcp`, `udp`, `icmp` or `any`. */
  proto: string;
  /** Destination port (`22`) or range (`8000-8080`); absent for every port. */
  dport?: string;
  /** Source CIDR; absent for anywhere. */
  source?: string;
}

/** A security group of the account. */
export interface SecurityGroupInfo {
  /** Group id; `SecurityGroup.get`, `adoptId` and a server's `securityGroupIds` take it. */
  id: number;
  /** The group's name. */
  name: string;
  /** `""` when the group has none. */
  description: string;
  /** Its rules, in order, spelt as a `SecurityGroup` resource's `rules` are. */
  rules: SecurityGroupRuleInfo[];
  /** The servers it is attached to, ascending. */
  serverIds: number[];
}

/** Filters of {@link getSecurityGroups}; a group must pass every filter given. */
export interface GetSecurityGroupsArgs extends NameRegexArgs {
  /** Only groups attached to this server (a number or its decimal text; `server.id` works). */
  serverId?: number | string | undefined;
}

/** {@link GetSecurityGroupsArgs} whose values may be Outputs. */
export interface GetSecurityGroupsOutputArgs extends NameRegexOutputArgs {
  /** See {@link GetSecurityGroupsArgs.serverId}. */
  serverId?: pulumi.Input<number | string | undefined>;
}

/** Result of {@link getSecurityGroups}. */
export interface GetSecurityGroupsResult extends ListedIds {
  /** The matching groups, by ascending id. */
  securityGroups: SecurityGroupInfo[];
}

export const GetSecurityGroupsArgsSchema = z.strictObject({
  nameRegex: RegexArg.optional(),
  serverId: idReference("a server id").optional(),
});

function groupFromApi(group: SecurityGroup): SecurityGroupInfo {
  return {
    id: group.id,
    name: group.name,
    description: group.description ?? "",
    rules: group.rules.map(ruleFromApi),
    serverIds: group.servers.map((s) => s.id).sort((a, b) => a - b),
  };
}

/**
 * The security groups of the account that pass every given filter (all of them without
 * filters), from one list (page by page as the service pages it). Never fails because nothing
 * matched: the lists are then empty.
 *
 * @example
 * const attached = cloudinfra.getSecurityGroupsOutput({ serverId: web.id });
 * export const webGroups = attached.names;
 */
export async function getSecurityGroups(
  args?: GetSecurityGroupsArgs,
  opts?: DataSourceOptions,
): Promise<GetSecurityGroupsResult> {
  const filter = parseArgs("getSecurityGroups", GetSecurityGroupsArgsSchema, args);
  const listed = await callApi(
    "getSecurityGroups",
    (client, o) => client.firewall.listAll({ limit: 100 }, o),
    opts,
  );
  const groups = matchingName(listed, filter.nameRegex, (g) => g.name)
    .filter((g) => filter.serverId === undefined || g.servers.some((s) => s.id === filter.serverId))
    .map(groupFromApi)
    .sort((a, b) => a.id - b.id);
  return listResult("securityGroups", groups);
}

/** {@link getSecurityGroups} with arguments that may be Outputs. */
export function getSecurityGroupsOutput(
  args?: GetSecurityGroupsOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetSecurityGroupsResult> {
  return outputOf(args ?? {}, opts, (resolved, o) => getSecurityGroups(resolved, o));
}
