/** `/v1/blog/posts`: the service's blog. Needs only a valid key. */
import type { RequestOptions } from "../http";
import { collect, iteratePages, pageQuery } from "../paging";
import { type BlogPost, BlogPostSchema, BlogPostsPageSchema } from "../schemas/blog";
import type { PageParams } from "../schemas/common";
import { ApiArea, segment } from "./base";

export class BlogApi extends ApiArea {
  /** `GET /v1/blog/posts?page=&limit=`: one page of posts plus the featured posts. */
  async listPage(params?: PageParams, options?: RequestOptions) {
    return this.http.request(
      {
        method: "GET",
        path: "/v1/blog/posts",
        query: pageQuery(params),
        response: BlogPostsPageSchema,
        retry: "idempotent",
      },
      options,
    );
  }

  /** Every regular post (`posts` of each page; featured posts are not repeated). */
  iterate(
    params?: PageParams,
    options?: RequestOptions,
  ): AsyncGenerator<BlogPost, void, undefined> {
    return iteratePages(
      (p) => this.listPage(p, options),
      (page) => page.posts,
      params,
    );
  }

  /** Every regular post, all pages collected. */
  listAll(params?: PageParams, options?: RequestOptions): Promise<BlogPost[]> {
    return collect(this.iterate(params, options));
  }

  /** `GET /v1/blog/posts/{name}`: one post by its short name. */
  async get(shortName: string, options?: RequestOptions) {
    return this.read(`/v1/blog/posts/${segment(shortName, "shortName")}`, BlogPostSchema, options);
  }
}
