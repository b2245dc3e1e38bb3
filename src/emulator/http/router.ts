/**
 * Route declarations and path matching. A route module declares routes with {@link defineRoute};
 * the server does everything around the handler (auth, permission from permissions.ts, rate
 * limits, faults, content type, body validation, persistence, logging). See ../ROUTES.md.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type {
  AccountState,
  Catalogue,
  IdKind,
  ServerRecord,
  Timestamp,
  TransientStatus,
  TransitionTarget,
  UserRecord,
} from "../store/state";

export type { Author } from "../service/author";
export type { TransientStatus };

/** The methods routes are declared with; any other method is counted and faulted as one. */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** True for the methods of {@link HTTP_METHODS}. */
export function isHttpMethod(method: string): method is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(method);
}

/** What a handler returns: a status and a JSON body. Build it with `ctx.json()`. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One page of a paged list, in the wire's shape minus the list's own field name. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total_count: number;
  total_pages: number;
}

export interface RouteContext<B = undefined> {
  /** Also sent back as the `x-request-id` header. */
  readonly requestId: string;
  readonly method: HttpMethod;
  /** Path as requested, without the query. */
  readonly path: string;
  /** The matched pattern, for example `/v1/servers/:id`. */
  readonly route: string;
  /** Decoded `:name` segments of the path. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The body, parsed and validated with the route's `body` schema (undefined without one). */
  readonly body: B;
  /** The parsed multipart body, on routes declared `multipart: true`. */
  readonly form: FormData | undefined;
  /**
   * The caller's account: its tables. Change a record in place and record it with the table's
   * `update` (or `insert`, `remove`); what a handler records is committed before the answer.
   */
  readonly account: AccountState;
  /** The authenticated user (in `account`). */
  readonly user: UserRecord;
  /** Plans, countries, images and blog posts (read-only, shared by all accounts). */
  readonly catalogue: Catalogue;
  /** Current time of the emulator clock, RFC 3339 UTC. Use it for every timestamp. */
  now(): Timestamp;
  /** A fresh id of this kind, unique across accounts and never reused. */
  nextId(kind: IdKind): number;
  /** Path parameter as a positive integer; answers 400 invalid_request otherwise. */
  intParam(name: string): number;
  /**
   * The query parameters of `names` that the request carries. A parameter given twice
   * (`?page=1&page=2`) is 400 naming it: which value was meant cannot be known.
   */
  queryParams(names: readonly string[]): Record<string, string>;
  /** Slices `items` by `?page=` (1-based) and `?limit=` (default 20, max 100); 400 when invalid. */
  page<T>(items: readonly T[]): Page<T>;
  /**
   * Puts `server` in a transient status now and schedules the move to `target` (see
   * service/lifecycle.ts); returns the action id to answer with. `target: "gone"` removes the server
   * (and its ids from tags and security groups) when the transition completes.
   */
  beginTransition(
    server: ServerRecord,
    transient: TransientStatus,
    target: TransitionTarget,
  ): string;
  /**
   * Stores bytes (attachments), durably with the request's commit, and returns their sha256,
   * which is also their blob id.
   */
  putBlob(bytes: Uint8Array): Promise<string>;
  /** A JSON answer; 200 unless told otherwise. */
  json(body: unknown, status?: number): Reply;
  /** The spec's GenericResponse: `{"success": true, "message"}`. */
  generic(message: string): Reply;
}

/** A body read as text (routes declared with `text`): its media type, lower case, and the text. */
export interface TextBody {
  type: string | undefined;
  text: string;
}

export interface RouteDefinition<B = undefined> {
  method: HttpMethod;
  /** `/v1/servers/:id`; must have an entry in ROUTE_PERMISSIONS (service/permissions.ts). */
  path: string;
  /** JSON body schema: the request must be application/json and valid, else 415 / 400. */
  body?: z.ZodType<B>;
  /** The request must be multipart/form-data; the parsed form arrives as `ctx.form`. */
  multipart?: boolean;
  /**
   * The body is UTF-8 text of one of these media types (or empty, without a type) and arrives,
   * unparsed, as `ctx.body` ({@link TextBody}); the handler parses and validates it.
   */
  text?: readonly string[];
  /**
   * With `text`: reads the text (it may look at nothing but the request) before the handler's
   * transaction, while other requests go on, and hands its result to the handler as `ctx.body`;
   * it throws an {@link HttpError} for a text it refuses. For a body that is costly to read.
   */
  readText?: (body: TextBody) => B;
  /**
   * An administration route under /_emulator/ (admin/routes.ts): only the bootstrap
   * administrator's key may call it; it is neither rate-limited nor subject to faults, and needs
   * no entry in ROUTE_PERMISSIONS. Its handler makes what it changes durable itself.
   */
  admin?: boolean;
  handler(ctx: RouteContext<B>): Reply | Promise<Reply>;
}

/** A route with its body type erased, as the router stores it. */
export interface AnyRoute {
  method: HttpMethod;
  path: string;
  body?: z.ZodType;
  multipart?: boolean;
  text?: readonly string[];
  readText?: (body: TextBody) => unknown;
  admin?: boolean;
  handler(ctx: RouteContext<unknown>): Reply | Promise<Reply>;
}

/**
 * Declares a route; `ctx.body` is typed from the `body` schema's output. The cast only erases
 * that type for storage: the server always validates the body with the same schema first.
 */
export function defineRoute<B = undefined>(route: RouteDefinition<B>): AnyRoute {
  return route as unknown as AnyRoute;
}

interface CompiledRoute {
  route: AnyRoute;
  segments: string[];
  /** Static segments rank before parameters when two patterns match the same path. */
  rank: string;
}

export type MatchResult =
  | { kind: "found"; route: AnyRoute; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: HttpMethod[] }
  | { kind: "not_found" };

function splitPath(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(route: AnyRoute): void {
    const segments = splitPath(route.path);
    const key = `${route.method} /${segments.join("/")}`;
    if (this.routes.some((r) => `${r.route.method} /${r.segments.join("/")}` === key)) {
      throw new Error(`route ${key} is registered twice`);
    }
    const rank = segments.map((s) => (s.startsWith(":") ? "1" : "0")).join("");
    this.routes.push({ route, segments, rank });
    this.routes.sort((a, b) => a.rank.localeCompare(b.rank));
  }

  list(): AnyRoute[] {
    return this.routes.map((r) => r.route);
  }

  match(method: string, path: string): MatchResult {
    const parts = splitPath(path);
    const allowed: HttpMethod[] = [];
    for (const compiled of this.routes) {
      const params = matchSegments(compiled.segments, parts);
      if (params === undefined) continue;
      if (compiled.route.method === method) return { kind: "found", route: compiled.route, params };
      allowed.push(compiled.route.method);
    }
    return allowed.length > 0 ? { kind: "method_not_allowed", allowed } : { kind: "not_found" };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    const actual = parts[i] as string;
    if (expected.startsWith(":")) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[expected.slice(1)] = decoded;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/** Key of a route in ROUTE_PERMISSIONS and in the per-route counters: `GET /v1/servers/:id`. */
export function routeKey(method: string, path: string): string {
  return `${method} /${splitPath(path).join("/")}`;
}
