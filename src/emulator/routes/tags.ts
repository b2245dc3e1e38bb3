/**
 * Tags (spec: Tags). A tag holds the ids of the servers carrying it; servers show their tags
 * through the views in views.ts. The rules (names unique per account, known servers) are in
 * service/tags.ts.
 */
import { CreateTagRequestSchema, UpdateTagRequestSchema } from "../../api/schemas/tags";
import { findOr404 } from "../http/http-errors";
import { defineRoute } from "../http/router";
import { createTag, deleteTag, updateTag } from "../service/tags";
import { tagView } from "./views";

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
      const tag = createTag(ctx, ctx.body);
      return ctx.json(tagView(ctx.account, ctx.catalogue, tag), 201);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tags/:id",
    body: UpdateTagRequestSchema,
    handler(ctx) {
      const tag = findOr404(ctx.account.tags, ctx.intParam("id"), "Tag");
      updateTag(ctx, tag, ctx.body);
      return ctx.generic(`Tag ${tag.id} updated`);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tags/:id",
    handler(ctx) {
      const tag = findOr404(ctx.account.tags, ctx.intParam("id"), "Tag");
      deleteTag(ctx.account, tag);
      return ctx.generic(`Tag ${tag.id} deleted`);
    },
  }),
];
