/** Tags: the operations the tags routes, the seeders and the admin API share. */
import type { CreateTagRequest } from "../../api/schemas/tags";
import type { TagRecord } from "../store/state";
import type { Author } from "./author";

/** A new tag as POST /v1/tags makes it (its name and servers already checked). */
export function insertTag(author: Author, request: CreateTagRequest): TagRecord {
  const now = author.now();
  const tag: TagRecord = {
    id: author.nextId("tag"),
    name: request.name,
    color: request.color,
    data: request.data ?? "",
    created_by_user: author.user.id,
    server_ids: [...(request.server_ids ?? [])],
    created_at: now,
    updated_at: now,
  };
  author.account.tags.insert(tag);
  return tag;
}
