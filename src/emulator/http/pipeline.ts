/**
 * The request pipeline around route handlers, for the public API and /_emulator/ alike:
 *
 *   x-request-id → auth (401; 429 once an address failed too often) → admin routes: bootstrap key (403), others: rate limit (429)
 *   → route match (404) → injected faults → permission (403) → content type (415)
 *   → body validation (400) → handler → commit → answer (or lose it)
 *
 * Every answer, error or not, is JSON with the request id, and lands in the request log under
 * the route the request matched (or would have matched, for a 429).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PermissionName } from "../../api/schemas/iam";
import type { EmulatorCore } from "../core";
import type { Authenticator } from "../service/auth";
import { keyFromHeader, type Principal } from "../service/auth";
import { clientAddress } from "../service/auth-throttle";
import type { RoutePermission } from "../service/permissions";
import { faultError, requestId, sendJson } from "./answer";
import { clientHungUp, holdBody, parseBody } from "./body";
import { routeContext } from "./context";
import type { FaultDecision, Faults } from "./faults";
import { HttpError, invalidRequest } from "./http-errors";
import { MAX_LOGGED_PATH, type RequestLogEntry } from "./log";
import type { RateLimitDecision, RateLimiter } from "./ratelimit";
import { type AnyRoute, type MatchResult, type Reply, type Router, routeKey } from "./router";

/** What the pipeline needs of the running emulator besides its core. */
export interface PipelineHost extends EmulatorCore {
  readonly auth: Authenticator;
  readonly router: Router;
  /** The permission each route needs, by `routeKey`. */
  readonly permissions: Readonly<Record<string, RoutePermission>>;
  readonly faults: Faults;
  readonly rateLimiter: RateLimiter;
  readonly bootstrapKey: string;
  /** The test hook of `EmulatorOptions.afterHandler`. */
  readonly afterHandler: ((route: AnyRoute) => void) | undefined;
  permissionsOf(principal: Principal): Set<PermissionName>;
  reportError(what: string, error: unknown): void;
  /** The request log, the counters and the access log. */
  recordAnswer(entry: RequestLogEntry): void;
}

export async function handleRequest(
  emulator: PipelineHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const id = requestId();
  res.setHeader("x-request-id", id);
  const method = (req.method ?? "GET").toUpperCase();
  // Nothing that reads the request or the emulator's settings runs before the `try`: whatever
  // fails is this request's 4xx or 500, never an exception that ends the process.
  let url = new URL("https://emulator.invalid/");
  const entry: RequestLogEntry = {
    time: new Date().toISOString(),
    request_id: id,
    method,
    path: (req.url ?? "/").split("?")[0]?.slice(0, MAX_LOGGED_PATH) ?? "",
    route: undefined,
    status: 0,
    duration_ms: 0,
  };
  try {
    url = requestUrl(req.url);
    entry.path = url.pathname.slice(0, MAX_LOGGED_PATH);
    entry.time = emulator.clock.now();
    // The service's clock, as its timestamps read it (moved by /_emulator/clock), not Node's: a
    // client compares `created_at` values with it (wire-contract.md, 409 `existing_created_at`).
    res.setHeader("date", new Date(emulator.clock.nowMs()).toUTCString());
    await route(emulator, req, res, { method, url, entry, id });
  } catch (error) {
    if (clientHungUp(req, error)) {
      // Not the emulator's failure: nothing to answer, nobody to answer to, no trace to print.
      entry.aborted = true;
      return;
    }
    const httpError =
      error instanceof HttpError ? error : new HttpError(500, "internal", "Internal server error");
    if (!(error instanceof HttpError))
      emulator.reportError(`${method} ${url.pathname} (${id})`, error);
    entry.status = httpError.status;
    if (!answerDropped(res, entry) && !res.headersSent) {
      const headers = { ...httpError.headers };
      if (httpError.status === 413) headers["connection"] = "close";
      sendJson(res, httpError.status, httpError.toBody(), headers);
    }
  } finally {
    entry.duration_ms = Math.round(performance.now() - started);
    emulator.recordAnswer(entry);
  }
}

/** The request target as a URL; 400 for one that is not a path (`//[`). */
function requestUrl(target: string | undefined): URL {
  try {
    return new URL(target ?? "/", "https://emulator.invalid");
  } catch {
    throw invalidRequest("The request target is not a valid path");
  }
}

interface Request {
  method: string;
  url: URL;
  entry: RequestLogEntry;
  id: string;
}

function isAdminPath(path: string): boolean {
  return path === "/_emulator" || path.startsWith("/_emulator/");
}

async function route(
  emulator: PipelineHost,
  req: IncomingMessage,
  res: ServerResponse,
  { method, url, entry, id }: Request,
): Promise<void> {
  const adminPath = isAdminPath(url.pathname);
  let principal: Principal;
  try {
    principal = emulator.auth.authenticate(req.headers.authorization, clientAddress(req));
  } catch (error) {
    // Callers without a valid key count against their address; they still get their 401.
    if (!adminPath) takeToken(emulator, res, `ip:${req.socket.remoteAddress ?? "?"}`);
    throw error;
  }
  entry.account_id = principal.account.profile.id;
  entry.user_id = principal.user.id;
  const match = emulator.router.match(method, url.pathname);
  if (match.kind === "found") entry.route = match.route.path;

  if (adminPath) {
    assertBootstrapAdministrator(emulator, principal, req.headers.authorization);
  } else {
    const limit = takeToken(
      emulator,
      res,
      `user:${principal.account.profile.id}:${principal.user.id}`,
    );
    if (!limit.allowed) {
      throw new HttpError(
        429,
        "rate_limited",
        `Rate limit exceeded; retry in ${limit.retryAfterSeconds} s`,
        { headers: { "retry-after": String(limit.retryAfterSeconds) } },
      );
    }
  }
  const { route, params } = found(match, method, url.pathname, adminPath);

  const fault =
    route.admin === true
      ? { latencyMs: 0 }
      : emulator.faults.decide(method, route.path, url.pathname);
  // A client may hang up while its request is held; one it sent whole is still applied.
  const body = fault.latencyMs > 0 ? holdBody(req) : req;
  if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.before !== undefined) {
    if (fault.before.kind === "reset") {
      entry.fault = "reset";
      res.socket?.destroy();
      return;
    }
    entry.fault = `status_${fault.before.status}`;
    throw faultError(fault.before.status);
  }

  const permission = emulator.permissions[routeKey(route.method, route.path)];
  if (permission !== null && permission !== undefined) {
    if (!emulator.permissionsOf(principal).has(permission)) {
      throw new HttpError(
        403,
        "forbidden",
        `Your role lacks the ${permission} permission required by ${method} ${route.path}`,
      );
    }
  }

  const parsed = await parseBody(req, route, body);
  const ctx = routeContext(emulator, { id, url, req, route, params, principal }, parsed);
  // All or nothing: what the handler recorded is committed before the answer, or, when it
  // fails (even after changing things), dropped from memory and never written.
  const reply = await emulator.transaction(async () => {
    const handled = await route.handler(ctx);
    emulator.afterHandler?.(route);
    return handled;
  });
  answer(res, reply, fault, entry);
}

/** The matched route, or 404 naming the methods the path accepts. */
function found(
  match: MatchResult,
  method: string,
  path: string,
  adminPath: boolean,
): { route: AnyRoute; params: Record<string, string> } {
  if (match.kind === "found") return match;
  const what = adminPath ? "No admin route" : "No route";
  const accepts =
    match.kind === "method_not_allowed" ? ` (it accepts ${match.allowed.join(", ")})` : "";
  throw new HttpError(404, "not_found", `${what} for ${method} ${path}${accepts}`);
}

/** 403 for every key but the bootstrap administrator's. */
function assertBootstrapAdministrator(
  emulator: PipelineHost,
  principal: Principal,
  authorization: string | undefined,
): void {
  const { bootstrap } = emulator.state;
  if (
    principal.account.profile.id !== bootstrap.account_id ||
    principal.user.id !== bootstrap.user_id ||
    // Checked on the key itself too: a reset re-creates the bootstrap user with the same ids.
    keyFromHeader(authorization) !== emulator.bootstrapKey
  ) {
    throw new HttpError(
      403,
      "forbidden",
      "Only the bootstrap administrator's key may use /_emulator/",
    );
  }
}

function takeToken(emulator: PipelineHost, res: ServerResponse, key: string): RateLimitDecision {
  const limit = emulator.rateLimiter.take(key);
  for (const [name, value] of Object.entries(limit.headers)) res.setHeader(name, value);
  return limit;
}

/** Sends the handler's reply, or loses it the way an "answer lost" fault says. */
function answer(res: ServerResponse, reply: Reply, fault: FaultDecision, entry: RequestLogEntry) {
  entry.status = reply.status;
  if (answerDropped(res, entry)) return;
  if (fault.after === "reset") {
    entry.fault = "answer_lost_reset";
    res.socket?.destroy();
    return;
  }
  if (fault.after === "502") {
    entry.fault = "answer_lost_502";
    entry.status = 502;
    sendJson(res, 502, faultError(502).toBody());
    return;
  }
  sendJson(res, reply.status, reply.body, reply.headers);
}

/**
 * True when the client hung up after its request arrived whole (while it was held, or handled):
 * the request stands, its answer is dropped, and the log records it as aborted by the client.
 */
function answerDropped(res: ServerResponse, entry: RequestLogEntry): boolean {
  if (!res.destroyed) return false;
  entry.aborted = true;
  return true;
}
