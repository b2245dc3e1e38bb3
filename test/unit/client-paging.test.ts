import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import * as fx from "./client-fixtures";

const ORIGIN = "https://api.test";

let client: CloudInfraClient;

beforeAll(() => {
  nock.disableNetConnect();
  client = new CloudInfraClient({ endpoint: ORIGIN, apiKey: "test-key", maxRetries: 0 });
});

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  await client.close();
  nock.enableNetConnect();
});

/** Serves three pages of security groups, two per page, five in all; records the queries. */
function threeGroupPages(): { scope: nock.Scope; requested: string[] } {
  const requested: string[] = [];
  const pages: Record<string, unknown> = {
    "?page=1&limit=2": fx.securityGroupsPage(1, 2, 5, [1, 2]),
    "?page=2&limit=2": fx.securityGroupsPage(2, 2, 5, [3, 4]),
    "?page=3&limit=2": fx.securityGroupsPage(3, 2, 5, [5]),
  };
  const scope = nock(ORIGIN)
    .get("/v1/firewall/groups")
    .query(true)
    .times(3)
    .reply((req: Request) => {
      const query = new URL(req.url).search;
      requested.push(query);
      return query in pages
        ? [200, pages[query]]
        : [404, { success: false, message: query, code: "not_found" }];
    });
  return { scope, requested };
}

describe("paged lists", () => {
  it("iterates every security group across three pages, in order, and stops at total_pages", async () => {
    const { requested } = threeGroupPages();
    const ids: number[] = [];
    for await (const group of client.firewall.iterate({ limit: 2 })) ids.push(group.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(requested).toEqual(["?page=1&limit=2", "?page=2&limit=2", "?page=3&limit=2"]);
  });

  it("fetches lazily: stopping after the first group fetches only the first page", async () => {
    const { requested } = threeGroupPages();
    for await (const group of client.firewall.iterate({ limit: 2 })) {
      expect(group.id).toBe(1);
      break;
    }
    expect(requested).toEqual(["?page=1&limit=2"]);
  });

  it("stops on an empty page even when total_pages claims more", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/firewall/groups")
      .query({ page: "1" })
      .reply(200, fx.securityGroupsPage(1, 20, 100, [1]))
      .get("/v1/firewall/groups")
      .query({ page: "2" })
      .reply(200, { ...fx.securityGroupsPage(2, 20, 100, []), total_pages: 5 });
    expect((await client.firewall.listAll()).map((g) => g.id)).toEqual([1]);
    expect(scope.isDone()).toBe(true);
  });

  it("makes one request when there is nothing to list", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/firewall/groups")
      .query({ page: "1" })
      .reply(200, fx.securityGroupsPage(1, 20, 0, []));
    expect(await client.firewall.listAll()).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it("collects every blog post across pages, without repeating the featured posts", async () => {
    const scope = nock(ORIGIN)
      .get("/v1/blog/posts")
      .query({ page: "1", limit: "2" })
      .reply(200, fx.blogPostsPage(1, 2, 3, [1, 2]))
      .get("/v1/blog/posts")
      .query({ page: "2", limit: "2" })
      .reply(200, fx.blogPostsPage(2, 2, 3, [3]));
    const posts = await client.blog.listAll({ limit: 2 });
    expect(posts.map((p) => p.short_name)).toEqual(["post-1", "post-2", "post-3"]);
    expect(scope.isDone()).toBe(true);
  });
});
