/**
 * One emulator instance: its state and store, the services around route handlers (auth, rate
 * limits, faults, lifecycle, request log), and its life: start, reset, close.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { PermissionName } from "../api/schemas/iam";
import { definedOnly } from "../lib/defined";
import { privateTempDir } from "../lib/private-dir";
import {
  type AdminHost,
  type EmulatorAdmin,
  type EmulatorInfo,
  emulatorAdmin,
} from "./admin/operations";
import { adminRoutes } from "./admin/routes";
import { CONSOLE_PATH, EmulatorConsole, isConsolePath } from "./console";
import type { EmulatorCore } from "./core";
import { requestId } from "./http/answer";
import { type FaultConfig, Faults } from "./http/faults";
import { HttpError } from "./http/http-errors";
import { accessLine, RequestLog, type RequestLogEntry } from "./http/log";
import { handleRequest, type PipelineHost } from "./http/pipeline";
import { DEFAULT_RATE_LIMIT, type RateLimitConfig, RateLimiter } from "./http/ratelimit";
import { type AnyRoute, Router, routeKey } from "./http/router";
import { caCertPath, processTlsMaterial, type TlsMaterial, tlsMaterialInDir } from "./http/tls";
import { Listener } from "./http/transport";
import { allRoutes } from "./routes";
import { initialState, setBootstrapKey } from "./service/accounts";
import {
  Authenticator,
  apiKeyProblem,
  newApiKey,
  type Principal,
  permissionsOf,
} from "./service/auth";
import { AuthThrottle } from "./service/auth-throttle";
import { loadCatalogue } from "./service/catalogue";
import { Clock } from "./service/clock";
import { DEFAULT_TIMING, Lifecycle, type LifecycleTiming } from "./service/lifecycle";
import { ROUTE_PERMISSIONS, type RoutePermission } from "./service/permissions";
import { checkStore } from "./store/check";
import { Store } from "./store/database";
import { writeFileAtomic } from "./store/files";
import { type Catalogue, type EmulatorState, restoreState } from "./store/state";

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
  /**
   * For tests of route handlers: after every commit, read the whole state back from the
   * database and fail (a 500 naming the first difference) unless it equals the state in memory,
   * which catches a change made without `table.update()`. Costs a full read per write.
   */
  checkStore?: boolean;
  /**
   * For tests of all-or-nothing requests: called after every route handler returned, inside its
   * transaction; a hook that throws fails the request as a handler failing at its very end would.
   */
  afterHandler?: (route: AnyRoute) => void;
}

const BOOTSTRAP_KEY_FILE = "bootstrap-key";
const CONSOLE_SIGN_IN = `${CONSOLE_PATH}/sign-in`;

/** Refuses a bootstrap key a person chose that breaks the rule of chosen keys (service/auth.ts). */
function checkBootstrapKey(key: string, source: string): void {
  const problem = apiKeyProblem(key);
  if (problem !== undefined) {
    throw new Error(
      `the bootstrap administrator's key (${source}) ${problem}; set another with CLOUDINFRA_EMULATOR_API_KEY (or apiKey in-process)`,
    );
  }
}

export class Emulator implements EmulatorCore, PipelineHost, AdminHost {
  state: EmulatorState;
  readonly clock = new Clock();
  readonly store: Store;
  readonly auth: Authenticator;
  /** Failed authentications per client address, for the API and the console alike. */
  readonly authThrottle = new AuthThrottle();
  readonly router = new Router();
  readonly lifecycle: Lifecycle;
  readonly faults = new Faults();
  readonly rateLimiter: RateLimiter;
  readonly requestLog: RequestLog;
  readonly catalogue: Catalogue;
  readonly tls: TlsMaterial;
  readonly bootstrapKey: string;
  readonly startedAt = new Date();
  /** The administration operations, in-process and behind /_emulator/. */
  readonly admin: EmulatorAdmin = emulatorAdmin(this);
  /** The web console under /_emulator/console/ (console/). */
  readonly console: EmulatorConsole;
  /** Where the CA certificate is on disk (a temp dir in memory mode). */
  readonly caCertFile: string;
  /** The permission each route needs, by `routeKey` (ROUTE_PERMISSIONS plus extra routes). */
  readonly permissions: Record<string, RoutePermission>;
  private readonly startTiming: LifecycleTiming;
  private readonly startFaults: FaultConfig;
  private readonly startRateLimit: RateLimitConfig;
  private readonly logLine: ((line: string) => void) | undefined;
  private readonly tempDir: string | undefined;
  private readonly listener: Listener;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;
  /** The last transaction asked for; the next one starts when it has ended. */
  private transactions: Promise<void> = Promise.resolve();
  private readonly insideTransaction = new AsyncLocalStorage<object>();
  private running: object | undefined;
  endpoint = "";

  constructor(private readonly options: EmulatorOptions = {}) {
    this.catalogue = loadCatalogue(options.catalogue ?? {});
    this.console = new EmulatorConsole({
      admin: this.admin,
      catalogue: this.catalogue,
      bootstrapKey: () => this.bootstrapKey,
      authThrottle: this.authThrottle,
      recordSignIn: (status, durationMs) =>
        this.recordAnswer({
          time: this.clock.now(),
          request_id: requestId(),
          method: "POST",
          path: CONSOLE_SIGN_IN,
          route: CONSOLE_SIGN_IN,
          status,
          duration_ms: durationMs,
        }),
      reportError: (what, error) => this.reportError(what, error),
    });
    this.permissions = { ...ROUTE_PERMISSIONS };
    for (const route of [...allRoutes, ...adminRoutes(this.admin)]) this.addRoute(route);
    for (const extra of options.extraRoutes ?? []) {
      this.permissions[routeKey(extra.method, extra.path)] = extra.permission;
      this.addRoute(extra);
    }

    const dataDir = options.dataDir;
    if (options.apiKey !== undefined) checkBootstrapKey(options.apiKey, "apiKey");
    this.store = Store.open(dataDir);
    try {
      const kept = options.apiKey === undefined ? this.storedBootstrapKey() : undefined;
      if (kept !== undefined && dataDir !== undefined) {
        checkBootstrapKey(kept, `the key kept in ${join(dataDir, BOOTSTRAP_KEY_FILE)}`);
      }
      this.bootstrapKey = options.apiKey ?? kept ?? newApiKey().key;
      const stored = this.store.load();
      this.state =
        stored === undefined
          ? initialState(this.store.journal, this.clock.now(), this.bootstrapKey)
          : restoreState(this.store.journal, stored);
      setBootstrapKey(this.state, this.bootstrapKey);
      this.commit();
      const certDir = options.certDir ?? dataDir;
      this.tls = certDir === undefined ? processTlsMaterial() : tlsMaterialInDir(certDir);
      if (certDir === undefined) {
        this.tempDir = privateTempDir("emulator-", { what: "the in-memory emulator's folder" });
        this.caCertFile = join(this.tempDir, "ca.pem");
        writeFileSync(this.caCertFile, this.tls.caCert);
      } else {
        this.caCertFile = caCertPath(certDir);
      }
    } catch (error) {
      this.store.close();
      throw error;
    }

    this.auth = new Authenticator(() => this.state, this.authThrottle);
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
      transaction: (change) => this.transaction(change),
      onError: (error) => this.reportError("committing a status transition", error),
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
    this.listener = new Listener(this.tls, {
      request: (req, res) => void this.handle(req, res),
      answered: (entry) => this.recordAnswer(entry),
    });
  }

  private addRoute(route: AnyRoute): void {
    const key = routeKey(route.method, route.path);
    if (route.admin !== true && !(key in this.permissions)) {
      throw new Error(
        `route ${key} has no entry in ROUTE_PERMISSIONS (src/emulator/service/permissions.ts)`,
      );
    }
    this.router.add(route);
  }

  /**
   * Makes every change recorded so far durable (one transaction). With `checkStore`, then
   * compares the database with memory and throws on the first difference.
   */
  commit(): void {
    this.store.commit();
    if (this.options.checkStore === true) checkStore(this.store, this.state);
  }

  /**
   * Runs `change` all or nothing: when it returns, what it recorded is committed (one
   * transaction); when it throws, memory and the journal go back to the last commit, so neither
   * the answer nor the database nor a later request sees half of it. Transactions run one at a
   * time, in the order they were asked for: a handler that awaits never lets another request
   * (or a timed transition) commit its half-made changes or see them. A call made inside a
   * transaction (an admin operation called by its route) joins it.
   */
  transaction<T>(change: () => T | Promise<T>): Promise<T> {
    const inside = this.insideTransaction.getStore();
    if (inside !== undefined && inside === this.running) return Promise.resolve().then(change);
    const run = this.transactions.then(() => {
      // Identity, not a flag: a timer armed inside a transaction inherits its async context
      // and must still wait for its own turn when it fires.
      const token = {};
      this.running = token;
      return this.insideTransaction.run(token, async () => {
        try {
          const result = await change();
          this.commit();
          return result;
        } catch (error) {
          this.rollback(error);
          throw error;
        } finally {
          this.running = undefined;
        }
      });
    });
    this.transactions = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Memory back to what the database holds: the changes since the last commit are dropped. */
  private rollback(error: unknown): void {
    // A refusal (4xx) thrown before anything was recorded left memory as it was.
    if (error instanceof HttpError && this.store.journal.empty) return;
    this.store.journal.discard();
    const stored = this.store.load();
    if (stored === undefined) throw new Error("rollback: the database holds no state");
    this.state = restoreState(this.store.journal, stored);
    this.auth.clear();
    this.lifecycle.reschedule();
  }

  /** The test hook of {@link EmulatorOptions.afterHandler}. */
  get afterHandler(): ((route: AnyRoute) => void) | undefined {
    return this.options.afterHandler;
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
    }
    // Transitions that fell due while the emulator was down complete now.
    this.lifecycle.reschedule();
    this.endpoint = await this.listener.listen(
      this.options.port ?? 0,
      this.options.host ?? "127.0.0.1",
    );
  }

  get port(): number {
    return this.listener.port;
  }

  /** Stops accepting, lets requests in flight finish (up to 5 s), then flushes state. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const stopped = this.listener.stopAccepting();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.listener.destroyConnections();
    await stopped;
    this.lifecycle.stop();
    this.store.close();
    if (this.tempDir !== undefined) rmSync(this.tempDir, { recursive: true, force: true });
  }

  /** Stores bytes with the next commit, under their sha256. */
  putBlob(bytes: Uint8Array): Promise<string> {
    return this.store.putBlob(bytes);
  }

  /** Endpoint, pid, data dir, clock, start time and routes (GET /_emulator/info). */
  info(): EmulatorInfo {
    return {
      endpoint: this.endpoint,
      pid: process.pid,
      data_dir: this.store.dataDir ?? null,
      memory: this.store.dataDir === undefined,
      ca_cert_file: this.caCertFile,
      started_at: this.startedAt.toISOString(),
      now: this.clock.now(),
      clock_offset_ms: this.clock.offset,
      routes: this.router.list().map((r) => `${r.method} ${r.path}`),
    };
  }

  /** Replaces all state with a fresh start and restores start-up settings. */
  async reset(): Promise<void> {
    await this.transaction(() => {
      this.store.journal.emptyEverything();
      this.state = initialState(this.store.journal, this.clock.now(), this.bootstrapKey);
      this.auth.clear();
    });
    this.clock.setOffset(0);
    this.lifecycle.reset(this.startTiming);
    this.faults.configure(this.startFaults);
    this.rateLimiter.configure(this.startRateLimit);
    this.authThrottle.clear();
    this.requestLog.clear();
  }

  /** Permission names the principal's role holds. */
  permissionsOf(principal: Principal): Set<PermissionName> {
    return permissionsOf(principal.account, principal.user);
  }

  reportError(what: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`cloudinfra-emulator: error while ${what}: ${detail}\n`);
  }

  /** Every answer ends here: the admin request log, the counters and the access log. */
  recordAnswer(entry: RequestLogEntry): void {
    this.requestLog.record(entry);
    this.logLine?.(accessLine(entry));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    try {
      if (isConsolePath(req.url)) await this.console.handle(req, res);
      else await handleRequest(this, req, res);
    } catch (error) {
      // Both handlers answer their own failures; this is the net under them, so that no request
      // can end the process (an unhandled rejection would).
      this.reportError(`answering ${req.method} ${req.url?.slice(0, 200)}`, error);
      res.destroy();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) this.idle?.();
    }
  }
}
