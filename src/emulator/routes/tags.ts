/**
 * Tags (spec: Tags). A tag holds the ids of the servers carrying it; servers show their tags
 * through the views in views.ts.
 */
import {
  type CreateTagRequest,
  CreateTagRequestSchema,
  UpdateTagRequestSchema,
} from "../../api/schemas/tags";
import { conflict, findOr404, invalidFields } from "../http-errors";
import { type Author, defineRoute } from "../router";
import type { AccountState, TagRecord } from "../state";
import { nameTaken, unknownIdErrors } from "./validation";
import { tagView } from "./views";

function checkServers(account: AccountState, serverIds: readonly number[] | undefined): void {
  const errors = unknownIdErrors("server_ids", serverIds, account.servers, "server");
  if (errors.length > 0) throw invalidFields(errors);
}

function checkNameFree(account: AccountState, name: string, exceptId?: number): void {
  const taken = nameTaken(account.tags, name, exceptId);
  if (taken !== undefined)
    throw conflict(`A tag named ${taken.name} already exists (tag ${taken.id})`, taken.id);
}

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

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/tags",
    handler: (ctx) =>
      ctx.json(ctx.account.tags.all().map((t) => tagView(ctx.account, ctx.catalogue, t))),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tags",
    body: CreateTagRequestSchema,
    handler(ctx) {
      checkServers(ctx.account, ctx.body.server_ids);
      checkNameFree(ctx.account, ctx.body.name);
      const tag = insertTag(ctx, ctx.body);
      return ctx.json(tagView(ctx.account, ctx.catalogue, tag), 201);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tags/:id",
    body: UpdateTagRequestSchema,
    handler(ctx) {
      const tag = findOr404(ctx.account.tags, ctx.intParam("id"), "Tag");
      checkServers(ctx.account, ctx.body.server_ids);
      checkNameFree(ctx.account, ctx.body.name, tag.id);
      tag.name = ctx.body.name;
      tag.color = ctx.body.color;
      if (ctx.body.data !== undefined) tag.data = ctx.body.data;
      if (ctx.body.server_ids !== undefined) tag.server_ids = [...ctx.body.server_ids];
      tag.updated_at = ctx.now();
      ctx.account.tags.update(tag);
      return ctx.generic(`Tag ${tag.id} updated`);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tags/:id",
    handler(ctx) {
      const tag = findOr404(ctx.account.tags, ctx.intParam("id"), "Tag");
      ctx.account.tags.remove(tag.id);
      return ctx.generic(`Tag ${tag.id} deleted`);
    },
  }),
];
