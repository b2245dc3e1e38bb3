/**
 * The `ctx` a route handler receives (see router.ts for what each member promises): the caller,
 * the validated body, and the emulator services a handler may use.
 */
import type { IncomingMessage } from "node:http";
import { checkRequest, PageQuerySchema } from "../api/schemas/common";
import type { Principal } from "./auth";
import type { ParsedBody } from "./body";
import type { Emulator } from "./emulator";
import { invalidRequest } from "./http-errors";
import type { AnyRoute, HttpMethod, Page, RouteContext } from "./router";

export interface RequestFacts {
  id: string;
  url: URL;
  req: IncomingMessage;
  route: AnyRoute;
  params: Record<string, string>;
  principal: Principal;
}

export function routeContext(
  emulator: Emulator,
  request: RequestFacts,
  parsed: ParsedBody,
): RouteContext<unknown> {
  const { url, params, principal } = request;
  return {
    requestId: request.id,
    method: request.route.method as HttpMethod,
    path: url.pathname,
    route: request.route.path,
    params,
    query: url.searchParams,
    headers: request.req.headers,
    body: parsed.body,
    form: parsed.form,
    account: principal.account,
    user: principal.user,
    catalogue: emulator.catalogue,
    now: () => emulator.clock.now(),
    nextId: (kind) => emulator.state.nextId(kind),
    intParam(name) {
      const raw = params[name];
      if (raw === undefined || !/^[1-9]\d{0,14}$/.test(raw)) {
        throw invalidRequest(`Path parameter ${name} must be a positive integer`, [
          { field: name, message: "expected a positive integer" },
        ]);
      }
      return Number(raw);
    },
    page<T>(items: readonly T[]): Page<T> {
      const query: Record<string, string> = {};
      for (const key of ["page", "limit"]) {
        const value = url.searchParams.get(key);
        if (value !== null) query[key] = value;
      }
      const checked = checkRequest(PageQuerySchema, query);
      if (!checked.success) throw invalidRequest("Invalid paging parameters", checked.fieldErrors);
      const { page, limit } = checked.data;
      return {
        items: items.slice((page - 1) * limit, page * limit),
        page,
        limit,
        total_count: items.length,
        total_pages: Math.ceil(items.length / limit),
      };
    },
    beginTransition: (server, transient, target) =>
      emulator.lifecycle.begin(principal.account, server, transient, target),
    putBlob: (bytes) => emulator.store.putBlob(bytes),
    json: (replyBody, status = 200) => ({ status, body: replyBody }),
    generic: (message) => ({ status: 200, body: { success: true, message } }),
  };
}
