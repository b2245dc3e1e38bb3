/**
 * The `ctx` a route handler receives (see router.ts for what each member promises): the caller,
 * the validated body, and the emulator services a handler may use.
 */
import type { IncomingMessage } from "node:http";
import { checkRequest, PageQuerySchema } from "../../api/schemas/common";
import type { EmulatorCore } from "../core";
import type { Principal } from "../service/auth";
import type { ParsedBody } from "./body";
import { type FieldError, invalidFields, invalidRequest } from "./http-errors";
import type { AnyRoute, HttpMethod, Page, RouteContext } from "./router";

export interface RequestFacts {
  id: string;
  url: URL;
  req: IncomingMessage;
  route: AnyRoute;
  params: Record<string, string>;
  principal: Principal;
}

function queryParams(query: URLSearchParams, names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  const repeated: FieldError[] = [];
  for (const name of names) {
    const values = query.getAll(name);
    if (values.length > 1) {
      repeated.push({
        field: name,
        message: `given ${values.length} times (${values.join(", ")}); give it once`,
      });
    }
    if (values[0] !== undefined) found[name] = values[0];
  }
  if (repeated.length > 0) throw invalidFields(repeated, "Invalid query");
  return found;
}

export function routeContext(
  emulator: EmulatorCore,
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
    queryParams(names) {
      return queryParams(url.searchParams, names);
    },
    page<T>(items: readonly T[]): Page<T> {
      const checked = checkRequest(
        PageQuerySchema,
        queryParams(url.searchParams, ["page", "limit"]),
      );
      if (!checked.success) {
        throw invalidFields(checked.fieldErrors, "Invalid paging parameters");
      }
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
    putBlob: (bytes) => emulator.putBlob(bytes),
    json: (replyBody, status = 200) => ({ status, body: replyBody }),
    generic: (message) => ({ status: 200, body: { success: true, message } }),
  };
}
