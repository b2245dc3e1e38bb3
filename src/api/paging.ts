/** Walking the two paged lists (security groups, blog posts) page by page. */
import { RequestValidationError } from "./errors";
import { checkRequest, type PageParams, PageQuerySchema } from "./schemas/common";

/** The paging fields every paged answer carries. */
export interface PageInfo {
  page: number;
  total_pages: number;
}

/** Validates paging parameters; only the values the caller gave are sent. */
export function pageQuery(params: PageParams | undefined): { page?: number; limit?: number } {
  const result = checkRequest(PageQuerySchema, params ?? {});
  if (!result.success) throw new RequestValidationError("paging parameters", result.fieldErrors);
  const query: { page?: number; limit?: number } = {};
  if (params?.page !== undefined) query.page = result.data.page;
  if (params?.limit !== undefined) query.limit = result.data.limit;
  return query;
}

/**
 * Yields the items of every page, from `start.page` (default 1) until the page reported as
 * `total_pages`. An empty page also ends the walk, so a service whose counts are off (items
 * deleted while walking) cannot loop forever.
 */
export async function* iteratePages<P extends PageInfo, T>(
  fetchPage: (params: PageParams) => Promise<P>,
  itemsOf: (page: P) => readonly T[],
  start: PageParams = {},
): AsyncGenerator<T, void, undefined> {
  let page = start.page ?? 1;
  for (;;) {
    const params: PageParams = start.limit === undefined ? { page } : { page, limit: start.limit };
    const answer = await fetchPage(params);
    const items = itemsOf(answer);
    yield* items;
    if (items.length === 0 || page >= answer.total_pages) return;
    page += 1;
  }
}

/** Collects an async iterator into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
