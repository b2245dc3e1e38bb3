/** `getSshKeys`: the SSH keys of the account (`GET /v1/keys`), filtered in the program. */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Key } from "../api/schemas/keys";
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

/** An SSH key of the account (only its public half: the service never holds a private key). */
export interface SshKeyInfo {
  /** Key id; `SshKey.get`, `adoptId` and a server's `sshKeyIds` take it. */
  id: number;
  /** The key's name. */
  name: string;
  /** The public key, OpenSSH text as the service keeps it. */
  publicKey: string;
  /** Fingerprint, `SHA256:<base64>`. */
  fingerprint: string;
  /** When the key was added (RFC 3339). */
  createdAt: string;
}

/** Filters of {@link getSshKeys}; a key must pass every filter given. */
export interface GetSshKeysArgs extends NameRegexArgs {
  /** Only the key with this fingerprint (`SHA256:...`, as `ssh-keygen -lf` prints it). */
  fingerprint?: string | undefined;
}

/** {@link GetSshKeysArgs} whose values may be Outputs. */
export interface GetSshKeysOutputArgs extends NameRegexOutputArgs {
  /** See {@link GetSshKeysArgs.fingerprint}. */
  fingerprint?: pulumi.Input<string | undefined>;
}

/** Result of {@link getSshKeys}. */
export interface GetSshKeysResult extends ListedIds {
  /** The matching keys, by ascending id. */
  sshKeys: SshKeyInfo[];
}

export const GetSshKeysArgsSchema = z.strictObject({
  nameRegex: RegexArg.optional(),
  fingerprint: z.string({ error: "expected a fingerprint such as SHA256:..." }).optional(),
});

function keyFromApi(key: Key): SshKeyInfo {
  return {
    id: key.id,
    name: key.name,
    publicKey: key.public_key,
    fingerprint: key.fingerprint,
    createdAt: key.created_at,
  };
}

/**
 * The SSH keys of the account that pass every given filter (all of them without filters), from
 * one list call. Never fails because nothing matched: the lists are then empty.
 *
 * @example
 * const admins = await cloudinfra.getSshKeys({ nameRegex: "^admin-" });
 * new cloudinfra.Server("bastion", { ..., sshKeyIds: admins.ids });
 */
export async function getSshKeys(
  args?: GetSshKeysArgs,
  opts?: DataSourceOptions,
): Promise<GetSshKeysResult> {
  const filter = parseArgs("getSshKeys", GetSshKeysArgsSchema, args);
  const listed = await callApi("getSshKeys", (client, o) => client.keys.list(o), opts);
  const keys = matchingName(listed, filter.nameRegex, (k) => k.name)
    .filter((k) => filter.fingerprint === undefined || k.fingerprint === filter.fingerprint)
    .map(keyFromApi)
    .sort((a, b) => a.id - b.id);
  return listResult("sshKeys", keys);
}

/** {@link getSshKeys} with arguments that may be Outputs. */
export function getSshKeysOutput(
  args?: GetSshKeysOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetSshKeysResult> {
  return outputOf(args ?? {}, opts, (resolved, o) => getSshKeys(resolved, o));
}
