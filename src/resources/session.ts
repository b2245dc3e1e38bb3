/**
 * One provider session per configured provider: {@link ProviderSession}.
 *
 * Everything a provider keeps between calls belongs to the account it was configured for, never
 * to the process: the API client (its keep-alive connections and rate budget), the list cache
 * (shared-list.ts), the create ledger (ids before, claims: create.ts), the create journal
 * (journal.ts) and the server watch (server/watch.ts). A session is made in one place, from one
 * configuration, and handed to each kind's implementation; two providers configured for two
 * accounts in one process (a native plugin's provider instances) never see each other's state.
 *
 * Entry points:
 * - {@link sessionFor}`(config)`: the session of an explicit configuration (a native plugin
 *   builds one per configured provider instance, and the data sources use the client of the
 *   program's settings' session); the same configuration gives the same session.
 * - {@link currentSession}`()`: the session of the configuration that `configure()` recorded in
 *   a dynamic provider host (`pulumi-cloudinfra/provider`), else of the `CLOUDINFRA_*`
 *   variables. The serialized shims resolve it at each call, so their text never changes.
 * - Each kind's `operations` (its provider module, or `operationsOf(kind)` of the stable entry)
 *   take the session as their first argument; `implementation` is the same bound to
 *   {@link currentSession}, in the shape `pulumi.dynamic.ResourceProvider` calls.
 *
 * The registry below is the one piece of process-wide mutable state of `src/resources`.
 */
import { CloudInfraClient } from "../api/client";
import type { HttpClientOptions } from "../api/http";
import type { Logger } from "../api/log";
import {
  type ConfigSource,
  clientOptions,
  resolveSettings,
  type Settings,
  settingsFingerprint,
} from "../config";
import type { KindOperations, ResourceImplementation } from "./common";
import { CreateLedger } from "./create";
import { CreateJournal } from "./journal";
import type { ServerWatch } from "./server/watch";
import { sessionWatch } from "./server/watch";
import { SharedLists } from "./shared-list";
import { StackObjects } from "./stack-objects";

/** The HTTP settings a configuration may set beyond endpoint, key and CA. */
export type SessionTimeouts = Pick<
  HttpClientOptions,
  "timeoutMs" | "maxRetries" | "retryBaseDelayMs" | "retryMaxDelayMs"
>;

/**
 * One configured provider: where the API is, the key (secret: never logged, never in an error),
 * the CA to trust, the HTTP timeouts, and the project directory whose journal records its
 * creates (default: the working directory, which is the Pulumi project's in a provider host).
 */
export type SessionConfig = Settings &
  SessionTimeouts & {
    projectDir?: string;
    /** Where the client's debug lines go (a native plugin: the engine); default `CLOUDINFRA_LOG`. */
    logger?: Logger;
  };

/** The state one configured provider keeps between calls; see the top of this module. */
export interface ProviderSession {
  /** The client every call of this session goes through. */
  readonly client: CloudInfraClient;
  /** Shared reads of whole lists, refreshed by the client's write events. */
  readonly lists: SharedLists;
  /** Claims and ids before of this session's creates. */
  readonly creates: CreateLedger;
  /** Where this session's creates are written down (journal.ts). */
  readonly journal: CreateJournal;
  /** The shared polls of the servers this session waits for. */
  readonly watch: ServerWatch;
  /** The objects this session knows its deployment manages (stack-objects.ts). */
  readonly stack: StackObjects;
  /** The endpoint this session talks to (for messages; the key is never exposed). */
  readonly endpoint: string;
  /** Aborted by {@link cancel}: every server wait of the session ends at once. */
  readonly cancelled: AbortSignal;
  /** The engine's Cancel: ends the session's waits now; those still to come end at their start. */
  cancel(): void;
  /** Closes the client's connections. */
  close(): Promise<void>;
}

/** The session of one configuration, as the registry makes it. */
class ConfiguredSession implements ProviderSession {
  readonly client: CloudInfraClient;
  readonly lists: SharedLists;
  readonly creates = new CreateLedger();
  readonly stack = new StackObjects();
  readonly #config: SessionConfig;
  #journal: CreateJournal | undefined;
  #watch: ServerWatch | undefined;
  readonly #cancellation = new AbortController();

  constructor(config: SessionConfig) {
    this.#config = { ...config };
    const { projectDir: _dir, logger, ...http } = config;
    this.client = new CloudInfraClient({
      ...clientOptions(http),
      ...timeoutsOf(http),
      ...(logger === undefined ? {} : { logger }),
    });
    this.lists = new SharedLists(this.client);
  }

  get endpoint(): string {
    return this.#config.endpoint;
  }

  /** Made on first use. */
  get journal(): CreateJournal {
    this.#journal ??= CreateJournal.forProject(
      this.#config.projectDir ?? process.cwd(),
      this.#config.endpoint,
      this.#config.apiKey,
    );
    return this.#journal;
  }

  /** Made on first use. */
  get watch(): ServerWatch {
    this.#watch ??= sessionWatch(this.client, this.lists, this.cancelled);
    return this.#watch;
  }

  get cancelled(): AbortSignal {
    return this.#cancellation.signal;
  }

  cancel(): void {
    this.#cancellation.abort(new Error("cloudinfra: the operation was cancelled (Cancel)"));
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function timeoutsOf(config: SessionTimeouts): SessionTimeouts {
  const out: SessionTimeouts = {};
  if (config.timeoutMs !== undefined) out.timeoutMs = config.timeoutMs;
  if (config.maxRetries !== undefined) out.maxRetries = config.maxRetries;
  if (config.retryBaseDelayMs !== undefined) out.retryBaseDelayMs = config.retryBaseDelayMs;
  if (config.retryMaxDelayMs !== undefined) out.retryMaxDelayMs = config.retryMaxDelayMs;
  return out;
}

const KEYS = ["cloudinfra:endpoint", "cloudinfra:apiKey", "cloudinfra:caCert"] as const;

/** Sessions by configuration, and what a dynamic provider host's `configure()` recorded. */
class SessionRegistry {
  readonly #sessions = new Map<string, ProviderSession>();
  /** The stack configuration `configure()` handed over; only our own keys. */
  #configured: Map<string, string> | undefined;
  /** Bumped whenever what {@link current} depends on changes, besides the environment. */
  #generation = 0;
  /**
   * The host's session as last resolved, with what it was resolved from: every use of a member
   * of the host's session resolves it, and resolving hashes the settings.
   */
  #current: { key: string; session: ProviderSession } | undefined;

  current(env: NodeJS.ProcessEnv): ProviderSession {
    const key = [
      this.#generation,
      env["CLOUDINFRA_ENDPOINT"],
      env["CLOUDINFRA_API_KEY"],
      env["CLOUDINFRA_CA_CERT"],
    ].join("\n");
    if (this.#current?.key === key) return this.#current.session;
    const session = this.sessionFor(this.settings(env));
    this.#current = { key, session };
    return session;
  }

  #key(config: SessionConfig): string {
    const { endpoint, apiKey, caCert, projectDir, logger: _logger, ...timeouts } = config;
    const settings = caCert === undefined ? { endpoint, apiKey } : { endpoint, apiKey, caCert };
    return `${settingsFingerprint(settings)}\n${projectDir ?? ""}\n${JSON.stringify(timeouts)}`;
  }

  sessionFor(config: SessionConfig): ProviderSession {
    const key = this.#key(config);
    let session = this.#sessions.get(key);
    if (session === undefined) {
      session = new ConfiguredSession(config);
      this.#sessions.set(key, session);
    }
    return session;
  }

  configure(config: ConfigSource): void {
    const copy = new Map<string, string>();
    for (const key of KEYS) {
      const value = config.get(key);
      if (value !== undefined) copy.set(key, value);
    }
    this.#configured = copy;
    this.#generation++;
  }

  settings(env: NodeJS.ProcessEnv): Settings {
    const configured = this.#configured;
    return resolveSettings(
      configured === undefined ? undefined : { get: (k) => configured.get(k) },
      env,
    );
  }

  async reset(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#configured = undefined;
    this.#generation++;
    await Promise.all(sessions.map((s) => s.close()));
  }
}

const registry = new SessionRegistry();

/**
 * The session of an explicit configuration: the same configuration (endpoint, key, CA,
 * timeouts, project directory) gives the same session for the life of the process.
 */
export function sessionFor(config: SessionConfig): ProviderSession {
  return registry.sessionFor(config);
}

/** Records the stack configuration handed to `configure()`; only our own keys are kept. */
export function configureSession(config: ConfigSource): void {
  registry.configure(config);
}

/** The effective settings of a dynamic host: stack config first, then `CLOUDINFRA_*` variables. */
export function currentSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return registry.settings(env);
}

/** The session of the configuration `configure()` recorded (or of the environment). */
export function currentSession(): ProviderSession {
  return registry.current(process.env);
}

/** For tests that run providers in-process: forget the configuration and the sessions. */
export function resetSession(): Promise<void> {
  return registry.reset();
}

/**
 * {@link currentSession}, resolved each time a member is used: `check` and `diff` of most kinds
 * never touch it, and must work before any configuration exists (a preview's first checks).
 */
const hostSession = new Proxy({} as ProviderSession, {
  get(_target, member) {
    const session = currentSession();
    const value: unknown = Reflect.get(session, member);
    return typeof value === "function" ? value.bind(session) : value;
  },
});

/**
 * `operations` on the session of the host's configuration: what a dynamic provider host
 * (through the serialized shim and `pulumi-cloudinfra/provider`) calls.
 */
export function onCurrentSession(operations: KindOperations): ResourceImplementation {
  return {
    check: (olds, news) => operations.check(hostSession, olds, news),
    diff: (id, olds, news) => operations.diff(hostSession, id, olds, news),
    create: (inputs) => operations.create(hostSession, inputs),
    read: (id, props) => operations.read(hostSession, id, props),
    update: (id, olds, news) => operations.update(hostSession, id, olds, news),
    delete: (id, props) => operations.delete(hostSession, id, props),
  };
}
