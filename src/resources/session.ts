/**
 * One provider session per configured provider: {@link ProviderSession}.
 *
 * Everything a provider keeps between calls belongs to the account it was configured for, never
 * to the process: the API client (its keep-alive connections and rate budget), the list cache
 * (shared-list.ts), the create ledger (ids before, claims: create.ts), the create journal
 * (journal.ts), the objects of the stack (stack-objects.ts) and what a kind keeps per session in
 * a {@link SessionSlot} (the server watch: server/watch.ts). A session is made from one
 * configuration by whoever configures a provider, and handed to every operation as its first
 * argument; nothing here knows a "current" session:
 * - the dynamic entry point (`pulumi-cloudinfra/provider`, src/provider.ts) makes its host's
 *   session when `configure()` hands over the stack configuration ({@link lazySession}: its
 *   settings are resolved at first use, so a preview's `check` runs before any are set);
 * - a native plugin's provider instance takes {@link sessionFor}`(config)` of its Configure, and
 *   the data sources the client of the program's settings' session; the same configuration gives
 *   the same session, two accounts in one process never see each other's state.
 *
 * The registry of {@link sessionFor} is the one piece of process-wide mutable state of
 * `src/resources`.
 */
import { CloudInfraClient } from "../api/client";
import type { HttpClientOptions } from "../api/http";
import type { Logger } from "../api/log";
import { clientOptions, type Settings, settingsFingerprint } from "../config";
import { CreateLedger } from "./create";
import { CreateJournal } from "./journal";
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

/**
 * What a kind keeps per session, made on first use from the session (the server watch:
 * server/watch.ts): the kind owns the value and its type, the session only holds it.
 */
export interface SessionSlot<T> {
  make(session: ProviderSession): T;
}

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
  /** The objects this session knows its deployment manages (stack-objects.ts). */
  readonly stack: StackObjects;
  /** The endpoint this session talks to (for messages; the key is never exposed). */
  readonly endpoint: string;
  /** Aborted by {@link cancel}: every wait of the session ends at once. */
  readonly cancelled: AbortSignal;
  /** The value of `slot` in this session, made on first use. */
  slot<T>(slot: SessionSlot<T>): T;
  /** The engine's Cancel: ends the session's waits now; those still to come end at their start. */
  cancel(): void;
  /** Closes the client's connections (nothing to close when none was made). */
  close(): Promise<void>;
}

/**
 * The session of one configuration. The configuration is resolved on first need of the client,
 * the endpoint or the journal, so a session whose settings are missing still runs what needs none
 * (`check` and `diff` of most kinds) and fails with the settings' own error where it needs them.
 */
class ConfiguredSession implements ProviderSession {
  readonly creates = new CreateLedger();
  readonly stack = new StackObjects();
  readonly #resolve: () => SessionConfig;
  #config: SessionConfig | undefined;
  #client: CloudInfraClient | undefined;
  #lists: SharedLists | undefined;
  #journal: CreateJournal | undefined;
  readonly #slots = new Map<SessionSlot<unknown>, unknown>();
  readonly #cancellation = new AbortController();

  constructor(resolve: () => SessionConfig) {
    this.#resolve = resolve;
  }

  get #settings(): SessionConfig {
    this.#config ??= { ...this.#resolve() };
    return this.#config;
  }

  get client(): CloudInfraClient {
    if (this.#client === undefined) {
      const { projectDir: _dir, logger, ...http } = this.#settings;
      this.#client = new CloudInfraClient({
        ...clientOptions(http),
        ...timeoutsOf(http),
        ...(logger === undefined ? {} : { logger }),
      });
    }
    return this.#client;
  }

  get lists(): SharedLists {
    this.#lists ??= new SharedLists(this.client);
    return this.#lists;
  }

  get endpoint(): string {
    return this.#settings.endpoint;
  }

  get journal(): CreateJournal {
    const { projectDir, endpoint, apiKey } = this.#settings;
    this.#journal ??= CreateJournal.forProject(projectDir ?? process.cwd(), endpoint, apiKey);
    return this.#journal;
  }

  get cancelled(): AbortSignal {
    return this.#cancellation.signal;
  }

  slot<T>(slot: SessionSlot<T>): T {
    if (!this.#slots.has(slot)) this.#slots.set(slot, slot.make(this));
    return this.#slots.get(slot) as T;
  }

  cancel(): void {
    this.#cancellation.abort(new Error("cloudinfra: the operation was cancelled (Cancel)"));
  }

  async close(): Promise<void> {
    await this.#client?.close();
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

/**
 * A session whose configuration `resolve` gives when the session first needs it (and again after
 * it threw): what a provider that may be called before its settings exist is handed.
 */
export function lazySession(resolve: () => SessionConfig): ProviderSession {
  return new ConfiguredSession(resolve);
}

/** What tells two configurations apart: the settings (the key hashed), timeouts and directory. */
function keyOf(config: SessionConfig): string {
  const { endpoint, apiKey, caCert, projectDir, logger: _logger, ...timeouts } = config;
  const settings = caCert === undefined ? { endpoint, apiKey } : { endpoint, apiKey, caCert };
  return `${settingsFingerprint(settings)}\n${projectDir ?? ""}\n${JSON.stringify(timeouts)}`;
}

/** The sessions of explicit configurations, by {@link keyOf}. */
const sessions = new Map<string, ProviderSession>();

/**
 * The session of an explicit configuration: the same configuration (endpoint, key, CA,
 * timeouts, project directory) gives the same session for the life of the process.
 */
export function sessionFor(config: SessionConfig): ProviderSession {
  const key = keyOf(config);
  let session = sessions.get(key);
  if (session === undefined) {
    const copy = { ...config };
    session = new ConfiguredSession(() => copy);
    sessions.set(key, session);
  }
  return session;
}

/** For tests that run providers in-process: forget the sessions of {@link sessionFor}. */
export async function resetSessions(): Promise<void> {
  const made = [...sessions.values()];
  sessions.clear();
  await Promise.all(made.map((s) => s.close()));
}
