/**
 * Tags: the operations the tags routes, the seeders and the admin API share. Names are unique
 * per account (compared as {@link nameTaken} says, 409 otherwise); every server id must be one
 * of the account's servers (400 naming each unknown one).
 */
import type { CreateTagRequest, UpdateTagRequest } from "../../api/schemas/tags";
import { conflict, invalidFields } from "../http/http-errors";
import type { AccountState, TagRecord } from "../store/state";
import { type Author, insertNew } from "./author";
import { nameTaken, unknownIdErrors } from "./validation";

function checkServers(account: AccountState, serverIds: readonly number[] | undefined): void {
  const errors = unknownIdErrors("server_ids", serverIds, account.servers, "server");
  if (errors.length > 0) throw invalidFields(errors);
}

function checkNameFree(account: AccountState, name: string, exceptId?: number): void {
  const taken = nameTaken(account.tags, name, exceptId);
  if (taken !== undefined)
    throw conflict(`A tag named ${taken.name} already exists (tag ${taken.id})`, taken);
}

/** A new tag as POST /v1/tags makes it, once its name and servers are checked. */
export function createTag(author: Author, request: CreateTagRequest): TagRecord {
  checkServers(author.account, request.server_ids);
  checkNameFree(author.account, request.name);
  return insertTag(author, request);
}

/** A new tag, its name and servers already checked (a seed document checks them first). */
export function insertTag(author: Author, request: CreateTagRequest): TagRecord {
  return insertNew(author, author.account.tags, "tag", () => ({
    name: request.name,
    color: request.color,
    data: request.data ?? "",
    created_by_user: author.user.id,
    server_ids: [...(request.server_ids ?? [])],
  }));
}

/** Replaces name and color, and `data` and the servers when given. */
export function updateTag(
  author: Pick<Author, "account" | "now">,
  tag: TagRecord,
  request: UpdateTagRequest,
): void {
  checkServers(author.account, request.server_ids);
  checkNameFree(author.account, request.name, tag.id);
  tag.name = request.name;
  tag.color = request.color;
  if (request.data !== undefined) tag.data = request.data;
  if (request.server_ids !== undefined) tag.server_ids = [...request.server_ids];
  tag.updated_at = author.now();
  author.account.tags.update(tag);
}

export function deleteTag(account: AccountState, tag: TagRecord): void {
  account.tags.remove(tag.id);
}
