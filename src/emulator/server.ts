/**
 * The HTTPS server and the request pipeline around route handlers:
 *
 *   x-request-id → plain-HTTP refusal → /_emulator/ (admin) or:
 *   auth (401) → rate limit (429) → route match (404) → injected faults → permission (403)
 *   → content type (415) → body validation (400) → handler → persist → answer (or lose it)
 *
 * Plain HTTP on the HTTPS port: the first byte of every connection is peeked. A TLS handshake
 * starts with 0x16; anything else is answered, in plain HTTP/1.1, with 403 `https_required` and
 * the connection is closed, so a misconfigured client gets a readable error rather than a hang.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRequest, PageQuerySchema } from "../api/schemas/common";
import { createAccount, initialState, nextId, setBootstrapKey } from "./accounts";
import { handleAdmin } from "./admin";
import { Authenticator, newApiKey, type Principal, permissionsOf } from "./auth";
import { loadCatalogue } from "./catalogue";
import { Clock } from "./clock";
import { type FaultConfig, type FaultDecision, Faults } from "./faults";
import { type ErrorBodyOut, HttpError, invalidRequest, notFound } from "./http-errors";
import { DEFAULT_TIMING, Lifecycle, type LifecycleTiming } from "./lifecycle";
import { accessLine, RequestLog, type RequestLogEntry } from "./log";
import { ROUTE_PERMISSIONS, type RoutePermission } from "./permissions";
import {
  DEFAULT_RATE_LIMIT,
  type RateLimitConfig,
  type RateLimitDecision,
  RateLimiter,
} from "./ratelimit";
import {
  type AnyRoute,
  type HttpMethod,
  type Page,
  type Reply,
  type RouteContext,
  Router,
  routeKey,
} from "./router";
import { allRoutes } from "./routes";
import { type SeedRequest, type SeedResult, seedAccount } from "./seed";
import type { Catalogue, EmulatorState } from "./state";
import { DiskStore, MemoryStore, type Store, writeFileAtomic } from "./store";
import { caCertPath, processTlsMaterial, type TlsMaterial, tlsMaterialInDir } from "./tls";

/** A route that only exists in this emulator instance (tests); it names its own permission. */
export type ExtraRoute = AnyRoute & { permission: RoutePermission };

export interface EmulatorOptions {
  /** Interface to listen on; 127.0.0.1 unless told. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Keep state, TLS material and the bootstrap key here; without it nothing is kept. */
  dataDir?: string;
  /**
   * Reuse (or create) TLS material in this directory instead of the data dir, so test suites do
   * not generate keys per emulator. In memory mode without it, one set per process is used.
   */
  certDir?: string;
  /** The bootstrap administrator's key; else the one kept in the data dir, else a new one. */
  apiKey?: string;
  lifecycle?: { mode?: LifecycleTiming["mode"]; durations?: Partial<LifecycleTiming["durations"]> };
  rateLimit?: Partial<RateLimitConfig>;
  faults?: FaultConfig;
  /** Replace catalogue lists (plans, countries, images, blogPosts). */
  catalogue?: Partial<Catalogue>;
  /** Access log: a line sink, or true for stderr. Off unless asked. */
  log?: boolean | ((line: string) => void);
  /** Routes added to this instance only, for tests. */
  extraRoutes?: ExtraRoute[];
  /** How many recent requests the admin request log keeps (default 1000). */
  requestLogSize?: number;
}

const MAX_JSON_BYTES = 1024 * 1024;
/** Attachments may total 2 MB; multipart framing and text fields get some room on top. */
const MAX_MULTIPART_BYTES = 3 * 1024 * 1024;
const BOOTSTRAP_KEY_FILE = "bootstrap-key";

function requestId(): string {
  return `req_${randomBytes(8).toString("hex")}`;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function faultError(status: 500 | 502 | 503 | 429): HttpError {
  if (status === 429) {
    return new HttpError(429, "rate_limited", "Too many requests (injected fault)", {
      headers: { "retry-after": "1" },
    });
  }
  if (status === 500)
    return new HttpError(500, "internal", "Internal server error (injected fault)");
  return new HttpError(status, "unavailable", `Service unavailable (injected fault, ${status})`);
}

function mediaType(header: string | undefined): string | undefined {
  return header?.split(";")[0]?.trim().toLowerCase() || undefined;
}

/** Reads the request body, refusing (413) past `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () =>
    new HttpError(413, "payload_too_large", `Request body over ${limit} bytes`);
  if (Number(req.headers["content-length"] ?? "0") > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export class Emulator {
  state: EmulatorState;
  readonly clock = new Clock();
  readonly store: Store;
  readonly auth: Authenticator;
  readonly router = new Router();
  readonly lifecycle: Lifecycle;
  readonly faults = new Faults();
  readonly rateLimiter: RateLimiter;
  readonly requestLog: RequestLog;
  readonly catalogue: Catalogue;
  readonly tls: TlsMaterial;
  readonly bootstrapKey: string;
  readonly startedAt = new Date();
  /** Where the CA certificate is on disk (a temp dir in memory mode). */
  readonly caCertFile: string;
  private readonly permissions: Record<string, RoutePermission>;
  private readonly startTiming: LifecycleTiming;
  private readonly startFaults: FaultConfig;
  private readonly startRateLimit: RateLimitConfig;
  private readonly logLine: ((line: string) => void) | undefined;
  private readonly tempDir: string | undefined;
  private readonly netServer: NetServer;
  private readonly httpsServer: HttpsServer;
  private readonly sockets = new Set<Socket>();
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  endpoint = "";

  constructor(private readonly options: EmulatorOptions = {}) {
    this.catalogue = loadCatalogue(options.catalogue ?? {});
    this.permissions = { ...ROUTE_PERMISSIONS };
    for (const route of allRoutes) this.addRoute(route);
    for (const extra of options.extraRoutes ?? []) {
      this.permissions[routeKey(extra.method, extra.path)] = extra.permission;
      this.addRoute(extra);
    }

    const dataDir = options.dataDir;
    this.store =
      dataDir === undefined ? new MemoryStore() : new DiskStore(dataDir, () => this.state);
    try {
      this.bootstrapKey = options.apiKey ?? this.storedBootstrapKey() ?? newApiKey().key;
      const loaded = this.store.load();
      this.state = loaded ?? initialState(this.clock.now(), this.bootstrapKey);
      if (loaded !== undefined) setBootstrapKey(this.state, this.bootstrapKey);
      const certDir = options.certDir ?? dataDir;
      this.tls = certDir === undefined ? processTlsMaterial() : tlsMaterialInDir(certDir);
      if (certDir === undefined) {
        this.tempDir = mkdtempSync(join(tmpdir(), "cloudinfra-emulator-"));
        this.caCertFile = join(this.tempDir, "ca.pem");
        writeFileSync(this.caCertFile, this.tls.caCert);
      } else {
        this.caCertFile = caCertPath(certDir);
      }
    } catch (error) {
      void this.store.close();
      throw error;
    }

    this.auth = new Authenticator(() => this.state);
    this.startTiming = {
      mode: options.lifecycle?.mode ?? DEFAULT_TIMING.mode,
      durations: {
        ...DEFAULT_TIMING.durations,
        ...definedOnly(options.lifecycle?.durations ?? {}),
      },
    };
    this.lifecycle = new Lifecycle({
      getState: () => this.state,
      clock: this.clock,
      persist: () => this.store.persist(),
      onError: (error) => this.reportError("persisting a status transition", error),
    });
    this.lifecycle.reset(this.startTiming);
    this.startFaults = options.faults ?? { seed: 1, rules: [] };
    this.faults.configure(this.startFaults);
    this.startRateLimit = { ...DEFAULT_RATE_LIMIT, ...definedOnly(options.rateLimit ?? {}) };
    this.rateLimiter = new RateLimiter(this.startRateLimit);
    this.requestLog = new RequestLog(options.requestLogSize ?? 1000);
    this.logLine =
      options.log === true
        ? (line) => process.stderr.write(`${line}\n`)
        : typeof options.log === "function"
          ? options.log
          : undefined;

    this.httpsServer = createHttpsServer(
      { key: this.tls.serverKey, cert: this.tls.serverCert },
      (req, res) => {
        void this.handle(req, res);
      },
    );
    this.httpsServer.on("tlsClientError", () => {
      // A client that does not trust the CA aborts the handshake; nothing to answer.
    });
    this.netServer = createNetServer((socket) => this.onConnection(socket));
  }

  private addRoute(route: AnyRoute): void {
    const key = routeKey(route.method, route.path);
    if (!(key in this.permissions)) {
      throw new Error(
        `route ${key} has no entry in ROUTE_PERMISSIONS (src/emulator/permissions.ts)`,
      );
    }
    this.router.add(route);
  }

  private storedBootstrapKey(): string | undefined {
    if (this.options.dataDir === undefined) return undefined;
    try {
      const key = readFileSync(join(this.options.dataDir, BOOTSTRAP_KEY_FILE), "utf8").trim();
      return key === "" ? undefined : key;
    } catch {
      return undefined;
    }
  }

  async start(): Promise<void> {
    if (this.options.dataDir !== undefined) {
      // Kept in plain text so a restarted emulator can hand the same key out again (emulator.json).
      await writeFileAtomic(
        join(this.options.dataDir, BOOTSTRAP_KEY_FILE),
        `${this.bootstrapKey}\n`,
        0o600,
      );
      await this.store.persist();
    }
    // Transitions that fell due while the emulator was down complete now.
    this.lifecycle.reschedule();
    const host = this.options.host ?? "127.0.0.1";
    await new Promise<void>((resolve, reject) => {
      this.netServer.once("error", reject);
      this.netServer.listen(this.options.port ?? 0, host, () => {
        this.netServer.off("error", reject);
        resolve();
      });
    });
    const address = this.netServer.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.endpoint = `https://${shownHost}:${address.port}`;
  }

  get port(): number {
    return (this.netServer.address() as AddressInfo | null)?.port ?? 0;
  }

  /** Stops accepting, lets requests in flight finish (up to 5 s), then flushes state. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.netServer.close(() => resolve()));
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    for (const socket of this.sockets) socket.destroy();
    await stopped;
    this.lifecycle.stop();
    await this.store.close();
    if (this.tempDir !== undefined) rmSync(this.tempDir, { recursive: true, force: true });
  }

  /** Replaces all state with a fresh start and restores start-up settings. */
  async reset(): Promise<void> {
    this.state = initialState(this.clock.now(), this.bootstrapKey);
    this.auth.clear();
    this.clock.setOffset(0);
    this.lifecycle.reset(this.startTiming);
    this.faults.configure(this.startFaults);
    this.rateLimiter.configure(this.startRateLimit);
    this.requestLog.clear();
    await this.store.persist();
  }

  async createAccount(options: Parameters<typeof createAccount>[2] = {}) {
    const created = createAccount(this.state, this.clock.now(), options);
    await this.store.persist();
    return {
      account_id: created.account.profile.id,
      user_id: created.account.owner_user_id,
      api_key: created.apiKey,
    };
  }

  /** Adds sample data to an account (the bootstrap administrator's unless told). */
  async seed(request: SeedRequest & { account_id?: number | undefined }): Promise<SeedResult> {
    const accountId = request.account_id ?? this.state.bootstrap.account_id;
    const account = this.state.accounts.find((a) => a.profile.id === accountId);
    if (account === undefined) throw notFound("account", accountId);
    const created = seedAccount(this.state, account, this.catalogue, this.clock.now(), request);
    await this.store.persist();
    return created;
  }

  reportError(what: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`cloudinfra-emulator: error while ${what}: ${detail}\n`);
  }

  private onConnection(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    // A connection that never says anything is not worth a file descriptor forever.
    socket.setTimeout(30_000, () => socket.destroy());
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.unshift(chunk);
      if (chunk[0] === 0x16) {
        this.httpsServer.emit("connection", socket);
      } else {
        this.refusePlainHttp(socket, chunk);
      }
    });
  }

  private refusePlainHttp(socket: Socket, firstChunk: Buffer): void {
    const started = performance.now();
    const id = requestId();
    const [method = "?", target = "?"] =
      firstChunk.toString("latin1").split("\r\n")[0]?.split(" ") ?? [];
    const body = JSON.stringify({
      success: false,
      message: "HTTPS is required: this endpoint only speaks TLS (use https://)",
      code: "https_required",
    } satisfies ErrorBodyOut);
    socket.end(
      [
        "HTTP/1.1 403 Forbidden",
        "content-type: application/json; charset=utf-8",
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${id}`,
        "connection: close",
        "",
        body,
      ].join("\r\n"),
    );
    // Keep reading until the client hangs up: closing with unread input would send a TCP reset
    // that can overtake the answer.
    socket.resume();
    socket.setTimeout(2000, () => socket.destroy());
    this.finish({
      time: new Date().toISOString(),
      request_id: id,
      method: method.slice(0, 16),
      path: target.slice(0, 200),
      route: undefined,
      status: 403,
      duration_ms: Math.round(performance.now() - started),
    });
  }

  private finish(entry: RequestLogEntry): void {
    this.requestLog.record(entry);
    this.logLine?.(accessLine(entry));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    const started = performance.now();
    const id = requestId();
    res.setHeader("x-request-id", id);
    const url = new URL(req.url ?? "/", "https://emulator.invalid");
    const method = (req.method ?? "GET").toUpperCase();
    const entry: RequestLogEntry = {
      time: this.clock.now(),
      request_id: id,
      method,
      path: url.pathname,
      route: undefined,
      status: 0,
      duration_ms: 0,
    };
    try {
      if (url.pathname === "/_emulator" || url.pathname.startsWith("/_emulator/")) {
        entry.route = url.pathname;
        const reply = await handleAdmin(this, { method, url, req });
        entry.status = reply.status;
        sendJson(res, reply.status, reply.body);
      } else {
        await this.handleApi(req, res, method, url, entry, id);
      }
    } catch (error) {
      const httpError =
        error instanceof HttpError
          ? error
          : new HttpError(500, "internal", "Internal server error");
      if (!(error instanceof HttpError))
        this.reportError(`${method} ${url.pathname} (${id})`, error);
      entry.status = httpError.status;
      if (!res.headersSent && !res.destroyed) {
        const headers = { ...httpError.headers };
        if (httpError.status === 413) headers["connection"] = "close";
        sendJson(res, httpError.status, httpError.toBody(), headers);
      }
    } finally {
      entry.duration_ms = Math.round(performance.now() - started);
      this.finish(entry);
      this.inFlight -= 1;
      if (this.inFlight === 0) this.idle?.();
    }
  }

  private async handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: URL,
    entry: RequestLogEntry,
    id: string,
  ): Promise<void> {
    let principal: Principal;
    try {
      principal = this.auth.authenticate(req.headers.authorization);
    } catch (error) {
      // Callers without a valid key count against their address; they still get their 401.
      this.takeToken(res, `ip:${req.socket.remoteAddress ?? "?"}`);
      throw error;
    }
    entry.account_id = principal.account.profile.id;
    entry.user_id = principal.user.id;
    const limit = this.takeToken(res, `user:${principal.account.profile.id}:${principal.user.id}`);
    if (!limit.allowed) {
      throw new HttpError(
        429,
        "rate_limited",
        `Rate limit exceeded; retry in ${limit.retryAfterSeconds} s`,
        {
          headers: { "retry-after": String(limit.retryAfterSeconds) },
        },
      );
    }

    const match = this.router.match(method, url.pathname);
    if (match.kind === "not_found")
      throw new HttpError(404, "not_found", `No route for ${method} ${url.pathname}`);
    if (match.kind === "method_not_allowed") {
      throw new HttpError(
        404,
        "not_found",
        `No route for ${method} ${url.pathname} (it accepts ${match.allowed.join(", ")})`,
      );
    }
    const { route, params } = match;
    entry.route = route.path;

    const fault = this.faults.decide(method, route.path, url.pathname);
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

    const permission = this.permissions[routeKey(route.method, route.path)];
    if (permission !== null && permission !== undefined) {
      if (!permissionsOf(principal.account, principal.user).has(permission)) {
        throw new HttpError(
          403,
          "forbidden",
          `Your role lacks the ${permission} permission required by ${method} ${route.path}`,
        );
      }
    }

    const { body, form } = await this.parseBody(req, route);
    const ctx = this.context(principal, route, params, url, req, id, body, form);
    const reply = await route.handler(ctx);
    if (method !== "GET" && route.readOnly !== true && reply.status < 400)
      await this.store.persist();
    await this.answer(res, reply, fault, entry);
  }

  private takeToken(res: ServerResponse, key: string): RateLimitDecision {
    const limit = this.rateLimiter.take(key);
    for (const [name, value] of Object.entries(limit.headers)) res.setHeader(name, value);
    return limit;
  }

  private async answer(
    res: ServerResponse,
    reply: Reply,
    fault: FaultDecision,
    entry: RequestLogEntry,
  ): Promise<void> {
    if (fault.after === "reset") {
      entry.fault = "answer_lost_reset";
      entry.status = reply.status;
      res.socket?.destroy();
      return;
    }
    if (fault.after === "502") {
      entry.fault = "answer_lost_502";
      entry.status = 502;
      sendJson(res, 502, faultError(502).toBody());
      return;
    }
    entry.status = reply.status;
    sendJson(res, reply.status, reply.body, reply.headers);
  }

  private async parseBody(
    req: IncomingMessage,
    route: AnyRoute,
  ): Promise<{ body: unknown; form: FormData | undefined }> {
    const type = mediaType(req.headers["content-type"]);
    if (route.multipart === true) {
      if (type !== "multipart/form-data") {
        throw new HttpError(
          415,
          "unsupported_media_type",
          `${route.method} ${route.path} takes multipart/form-data, not ${type ?? "an untyped body"}`,
        );
      }
      const raw = await readBody(req, MAX_MULTIPART_BYTES);
      try {
        const form = await new Request("https://emulator.invalid/", {
          method: "POST",
          headers: { "content-type": req.headers["content-type"] ?? "" },
          body: raw,
        }).formData();
        return { body: undefined, form };
      } catch (error) {
        throw invalidRequest(
          `Malformed multipart body: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    if (route.body === undefined) {
      // Bodies of routes that take none are read and ignored, so the connection stays usable.
      await readBody(req, MAX_JSON_BYTES);
      return { body: undefined, form: undefined };
    }
    const raw = await readBody(req, MAX_JSON_BYTES);
    const isJson = type === "application/json" || (type?.endsWith("+json") ?? false);
    if ((type !== undefined || raw.length > 0) && !isJson) {
      throw new HttpError(
        415,
        "unsupported_media_type",
        `${route.method} ${route.path} takes application/json, not ${type ?? "an untyped body"}`,
      );
    }
    let parsed: unknown = {};
    if (raw.length > 0) {
      try {
        parsed = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        throw invalidRequest(
          `Body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const checked = checkRequest(route.body, parsed);
    if (!checked.success) {
      const summary = checked.fieldErrors
        .slice(0, 3)
        .map((e) => `${e.field}: ${e.message}`)
        .join("; ");
      throw invalidRequest(`Invalid request body (${summary})`, checked.fieldErrors);
    }
    return { body: checked.data, form: undefined };
  }

  private context(
    principal: Principal,
    route: AnyRoute,
    params: Record<string, string>,
    url: URL,
    req: IncomingMessage,
    id: string,
    body: unknown,
    form: FormData | undefined,
  ): RouteContext<unknown> {
    return {
      requestId: id,
      method: route.method as HttpMethod,
      path: url.pathname,
      route: route.path,
      params,
      query: url.searchParams,
      headers: req.headers,
      body,
      form,
      account: principal.account,
      user: principal.user,
      catalogue: this.catalogue,
      now: () => this.clock.now(),
      nextId: (kind) => nextId(this.state, kind),
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
        if (!checked.success)
          throw invalidRequest("Invalid paging parameters", checked.fieldErrors);
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
        this.lifecycle.begin(server, transient, target),
      putBlob: (bytes) => this.store.putBlob(bytes),
      json: (replyBody, status = 200) => ({ status, body: replyBody }),
      generic: (message) => ({ status: 200, body: { success: true, message } }),
    };
  }
}

function definedOnly<T extends object>(value: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
