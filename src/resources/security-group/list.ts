/**
 * The security group list, as the toolkit's lookups, the name-taken explanation and refresh read
 * it (every page; each group carries its rules and attached servers). SecurityGroup and
 * SecurityGroupAttachment share it under one key in the shared-list cache, so a refresh of both
 * reads it once.
 */
import type { CloudInfraClient } from "../../api/client";
import type { SecurityGroup } from "../../api/schemas/firewall";
import { findListed, type KindList } from "../named-kind";
import type { ProviderSession } from "../session";

/** Every group, all pages, and its key in the shared-list cache. */
export function groupList(client: CloudInfraClient): KindList<SecurityGroup> {
  return {
    key: "security-groups",
    read: (options) => client.firewall.listAll({ limit: 100 }, options),
  };
}

/** The group `match` accepts; "none" only from a list asked for after this call (shared-list.ts). */
export function findGroup(
  session: ProviderSession,
  match: (group: SecurityGroup) => boolean,
): Promise<SecurityGroup | undefined> {
  return findListed(session, groupList(session.client), match);
}
