import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, UnauthorizedError } from "../../src/api/errors";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

describe("GET /v1/blog/posts", () => {
  it("answers regular posts, newest first, and the featured ones beside them", async () => {
    const page = await api.client.blog.listPage();
    expect(page).toMatchObject({ page: 1, limit: 20, total_pages: 1 });
    expect(page.posts.length).toBe(page.total_count);
    expect(page.posts.every((p) => !p.featured)).toBe(true);
    expect(page.featured_posts.length).toBeGreaterThan(0);
    expect(page.featured_posts.every((p) => p.featured)).toBe(true);
    const times = page.posts.map((p) => Date.parse(p.datetime));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const post of [...page.posts, ...page.featured_posts]) {
      expect(post.href).toBe(`/blog/${post.short_name}`);
    }
  });

  it("pages through the regular posts; featured posts are on every page", async () => {
    const all = (await api.client.blog.listPage({ limit: 100 })).posts.map((p) => p.short_name);
    const first = await api.client.blog.listPage({ page: 1, limit: 3 });
    expect(first.total_pages).toBe(Math.ceil(all.length / 3));
    expect(first.posts.map((p) => p.short_name)).toEqual(all.slice(0, 3));
    const second = await api.client.blog.listPage({ page: 2, limit: 3 });
    expect(second.posts.map((p) => p.short_name)).toEqual(all.slice(3, 6));
    expect(second.featured_posts).toEqual(first.featured_posts);

    const walked = (await api.client.blog.listAll({ limit: 3 })).map((p) => p.short_name);
    expect(walked).toEqual(all);
    const past = await api.client.blog.listPage({ page: first.total_pages + 1, limit: 3 });
    expect(past.posts).toEqual([]);
    expect(past.total_count).toBe(all.length);
  });

  it("answers 400 for a bad page or limit", async () => {
    for (const query of ["page=0", "page=-1", "limit=101", "limit=ten"]) {
      const answer = await api.emulator.call("GET", `/v1/blog/posts?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({
        code: "invalid_request",
        errors: [expect.any(Object)],
      });
    }
  });
});

describe("GET /v1/blog/posts/:name", () => {
  it("answers a post by its short name, with its content", async () => {
    const { posts, featured_posts } = await api.client.blog.listPage();
    for (const listed of [posts[0], featured_posts[0]]) {
      const post = await api.client.blog.get(listed?.short_name ?? "");
      expect(post).toEqual(listed);
      expect(post.content).toMatch(/^<p>/);
    }
  });

  it("answers 404 for an unknown short name", async () => {
    const error = await apiError(api.client.blog.get("no-such-post"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain("no-such-post");
  });
});

describe("access", () => {
  it("needs a valid key but no permission", async () => {
    const bare = api.clientWith(await api.keyWith([]));
    const page = await bare.blog.listPage();
    expect(page.total_count).toBeGreaterThan(0);
    expect((await bare.blog.get(page.posts[0]?.short_name ?? "")).id).toBe(page.posts[0]?.id);
    expect(await apiError(api.clientWith("cik_unknown").blog.listPage())).toBeInstanceOf(
      UnauthorizedError,
    );
  });
});
