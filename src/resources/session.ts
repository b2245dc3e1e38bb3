/**
 * What a provider keeps between calls belongs to the account it was configured for, and is passed
 * to every operation. {@link sessionFor}'s registry is the one process-wide state of src/resources.
 */
import { CloudInfraClient } from "../api/client";
import type { HttpClientOptions } from "../api/http";
import type { Logger } from "../api/log";
import { type Settings, settingsFingerprint } from "../config";
import { CreateLedger } from "./create";
import { CreateJournal } from "./journal";
import { SharedLists } from "./shared-list";
import { StackObjects } from "./stack-objects";

/** The HTTP settings a configuration may set beyond endpoint, key and CA. */
export type SessionTimeouts = Pick<
  HttpClientOptions,
  "timeoutMs" | "maxRetries" | "retryBaseDelayMs" | "retryMaxDelayMs"
>;

/** The key is never logged, never in an error; `projectDir` holds the create journal (default cwd). */
export type SessionConfig = Settings &
  SessionTimeouts & {
    projectDir?: string;
    /** Where the client's debug lines go (a native plugin: the engine); default `CLOUDINFRA_LOG`. */
    logger?: Logger;
  };

/** What a kind keeps per session, made on first use (the server watch): the kind owns its type. */
export interface SessionSlot<T> {
  make(session: ProviderSession): T;
}

/** Resolved on first need: without settings, what needs none (`check`, `diff`) still runs. */
export class ProviderSession {
  readonly creates = new CreateLedger();
  readonly stack = new StackObjects();
  readonly #cancellation = new AbortController();
  /** Aborted by {@link cancel}: every wait of the session ends at once. */
  readonly cancelled: AbortSignal = this.#cancellation.signal;
  readonly #slots = new Map<SessionSlot<unknown>, unknown>();
  #config: SessionConfig | undefined;
  #client: CloudInfraClient | undefined;
  #lists: SharedLists | undefined;
  #journal: CreateJournal | undefined;

  /** For a provider called before its settings exist: `resolve` runs again after it throws. */
  constructor(private readonly resolve: () => SessionConfig) {}

  get #settings(): SessionConfig {
    this.#config ??= { ...this.resolve() };
    return this.#config;
  }

  get client(): CloudInfraClient {
    // The settings, timeouts and logger (each unset one left to the client's default) are the
    // client's options as they are; the client reads no other field (not `projectDir`).
    this.#client ??= new CloudInfraClient(this.#settings);
    return this.#client;
  }

  get lists(): SharedLists {
    this.#lists ??= new SharedLists(this.client);
    return this.#lists;
  }

  get journal(): CreateJournal {
    const { projectDir, endpoint, apiKey } = this.#settings;
    this.#journal ??= CreateJournal.forProject(projectDir ?? process.cwd(), endpoint, apiKey);
    return this.#journal;
  }

  slot<T>(slot: SessionSlot<T>): T {
    if (!this.#slots.has(slot)) this.#slots.set(slot, slot.make(this));
    return this.#slots.get(slot) as T;
  }

  /** The engine's Cancel: ends the session's waits now; those still to come end at their start. */
  cancel(): void {
    this.#cancellation.abort(new Error("cloudinfra: the operation was cancelled (Cancel)"));
  }

  async close(): Promise<void> {
    await this.#client?.close();
  }
}

/** What tells two configurations apart: the settings (the key hashed), timeouts and directory. */
function keyOf(config: SessionConfig): string {
  const { endpoint: _e, apiKey: _k, caCert: _ca, projectDir, logger: _l, ...timeouts } = config;
  return `${settingsFingerprint(config)}\n${projectDir ?? ""}\n${JSON.stringify(timeouts)}`;
}

const sessions = new Map<string, ProviderSession>();

/** The same configuration gives the same session for the life of the process. */
export function sessionFor(config: SessionConfig): ProviderSession {
  const key = keyOf(config);
  const copy = { ...config };
  const session = sessions.get(key) ?? new ProviderSession(() => copy);
  sessions.set(key, session);
  return session;
}

/** For tests that run providers in-process: forget the sessions of {@link sessionFor}. */
export async function resetSessions(): Promise<void> {
  const made = [...sessions.values()];
  sessions.clear();
  await Promise.all(made.map((s) => s.close()));
}
