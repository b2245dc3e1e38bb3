/**
 * The service's blog (spec: Blog). Needs only a valid key.
 *
 * Paging counts the regular (not featured) posts; `featured_posts` is the same short list on
 * every page, so a reader that walks all pages sees every post exactly once (wire contract).
 */
import { notFound } from "../http/http-errors";
import { defineRoute } from "../http/router";

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/blog/posts",
    handler(ctx) {
      const posts = ctx.catalogue.blogPosts;
      const page = ctx.page(posts.filter((post) => !post.featured));
      return ctx.json({
        posts: page.items,
        featured_posts: posts.filter((post) => post.featured),
        page: page.page,
        limit: page.limit,
        total_count: page.total_count,
        total_pages: page.total_pages,
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/blog/posts/:name",
    handler(ctx) {
      const name = ctx.params["name"] ?? "";
      const post = ctx.catalogue.blogPosts.find((p) => p.short_name === name);
      if (post === undefined) throw notFound("Blog post", name);
      return ctx.json(post);
    },
  }),
];
