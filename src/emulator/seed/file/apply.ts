/**
 * Creating what a checked seed document describes, through the same functions the routes create
 * with (createAccount, insertKey, insertGroup, insertRole, insertUser, insertServer, insertTag),
 * so seeded objects are exactly what the API would have made. Only called once check.ts found
 * nothing wrong: nothing here can fail half-way, and the caller commits it all at once.
 */

import type { PermissionName } from "../../../api/schemas/iam";
import { parsePublicKey } from "../../../lib/sshkeys";
import type { EmulatorCore } from "../../core";
import { permissionByName } from "../../data";
import { createAccount } from "../../service/accounts";
import { ownerOf } from "../../service/author";
import { insertGroup } from "../../service/firewall";
import { insertRole, insertUser } from "../../service/iam";
import { insertKey } from "../../service/keys";
import { insertServer, settleSeededServer } from "../../service/servers";
import { insertTag } from "../../service/tags";
import type { RoleRecord } from "../../store/state";
import { findPlan } from "./check";
import type { CheckedSeedDocument, SeedAccount } from "./schema";

/** What was created for one account of a seed document: ids by the document's names. */
export interface SeededAccount {
  account_id: number;
  name: string;
  /** The owner's API key: the document's `api_key`, or a generated one. */
  api_key: string;
  ssh_keys: Record<string, number>;
  security_groups: Record<string, number>;
  roles: Record<string, number>;
  /** Each user's id and API key (the document's, or generated; `""` for a did user). */
  users: Record<string, { user_id: number; api_key: string }>;
  servers: Record<string, number>;
  tags: Record<string, number>;
}

function entries<T>(section: Record<string, T> | null | undefined): [string, T][] {
  return Object.entries(section ?? {});
}

/**
 * An object for ids by a name from the document, without a prototype: `__proto__` and
 * `constructor` are names like any other, written and read as its own properties.
 */
function byName<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function seedAccount(emulator: EmulatorCore, seed: SeedAccount): SeededAccount {
  const { state, catalogue } = emulator;
  const now = emulator.clock.now();
  const { account, apiKey } = createAccount(state, now, {
    name: seed.name,
    ...(seed.company === undefined ? {} : { company: seed.company }),
    ...(seed.email === undefined ? {} : { email: seed.email }),
    ...(seed.country === undefined ? {} : { country: seed.country.toUpperCase() }),
    ...(seed.api_key === undefined ? {} : { apiKey: seed.api_key }),
  });
  const author = ownerOf(state, account, catalogue, now);
  const out: SeededAccount = {
    account_id: account.id,
    name: seed.name,
    api_key: apiKey,
    ssh_keys: byName(),
    security_groups: byName(),
    roles: byName(),
    users: byName(),
    servers: byName(),
    tags: byName(),
  };

  for (const [name, key] of entries(seed.ssh_keys)) {
    const imported = key.public_key === undefined ? undefined : parsePublicKey(key.public_key);
    out.ssh_keys[name] = insertKey(author, name, imported).key.id;
  }
  for (const [name, group] of entries(seed.security_groups)) {
    out.security_groups[name] = insertGroup(author, {
      name,
      rules: group.rules ?? [],
      ...(group.description === undefined ? {} : { description: group.description }),
    }).id;
  }
  for (const [name, role] of entries(seed.roles)) {
    const permissions = [...new Set(role.permissions.map((p) => p.trim().toLowerCase()))];
    out.roles[name] = insertRole(author, {
      name,
      permission_ids: permissions.map((p) => permissionByName(p as PermissionName).id),
      ...(role.description === undefined ? {} : { description: role.description }),
    }).id;
  }
  const systemRoles = account.roles.all().filter((r) => r.system_role);
  for (const [name, user] of entries(seed.users)) {
    const roleId = out.roles[user.role];
    const role = (
      roleId === undefined
        ? systemRoles.find((r) => r.name === user.role)
        : account.roles.get(roleId)
    ) as RoleRecord;
    const created =
      user.did === undefined
        ? insertUser(author, { name, type: "api", role_id: role.id }, role, user.api_key)
        : insertUser(author, { name, type: "did", role_id: role.id, did: user.did }, role);
    out.users[name] = { user_id: created.user.id, api_key: created.apiKey };
  }
  for (const [name, server] of entries(seed.servers)) {
    const groups = entries(seed.security_groups)
      .filter(([, group]) => group.servers?.includes(name) === true)
      .flatMap(([group]) => account.security_groups.get(out.security_groups[group] ?? 0) ?? []);
    const record = insertServer(
      author,
      findPlan(catalogue, server.plan) as NonNullable<ReturnType<typeof findPlan>>,
      {
        image: server.image,
        user_defined_name: name,
        ssh_key_ids: (server.ssh_keys ?? []).flatMap((key) => out.ssh_keys[key] ?? []),
        firewall_enabled: server.firewall_enabled,
      },
      groups,
    );
    settleSeededServer(emulator.lifecycle, account, record, server.status);
    out.servers[name] = record.id;
  }
  for (const [name, tag] of entries(seed.tags)) {
    out.tags[name] = insertTag(author, {
      name,
      color: tag.color,
      server_ids: (tag.servers ?? []).flatMap((server) => out.servers[server] ?? []),
      ...(tag.data === undefined ? {} : { data: tag.data }),
    }).id;
  }
  return out;
}

/** Creates every account of `document`, in order. The caller commits. */
export function applySeedDocument(
  emulator: EmulatorCore,
  document: CheckedSeedDocument,
): SeededAccount[] {
  return document.accounts.map((account) => seedAccount(emulator, account));
}
