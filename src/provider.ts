/**
 * The stable entry point `pulumi-cloudinfra/provider`, which the serialized shims of every stack
 * require at call time (see resources/shim.ts). Its exports keep their meaning across versions:
 * `run(kind, method, args)` (what shims call), `configure(req)` and `resource(kind)` (what the
 * shims of older versions call).
 *
 * A dynamic provider host is one process serving one stack: `configure()` hands it the stack's
 * configuration, from which this module makes the host's session ({@link configuredSession}), and
 * every method of every kind runs on that session, passed as its first argument. A native
 * provider plugin holds its own sessions (`sessionFor(config)` of each configured instance) and
 * calls `operationsOf(kind)` with them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { type ConfigSource, resolveSettings, SETTINGS } from "./config";
import { withDynamicAutonaming } from "./resources/autoname";
import type { KindOperations, ResourceImplementation } from "./resources/common";
import { isResourceKind, providerModule, type ResourceKind } from "./resources/kinds";
import { ProviderSession, resetSessions } from "./resources/session";
import { noteStackObjects } from "./resources/stack-objects";

export type { KindOperations, Props, ResourceImplementation } from "./resources/common";
export {
  type ProviderSession,
  type SessionConfig,
  type SessionTimeouts,
  sessionFor,
} from "./resources/session";

/** The stack configuration keys a host's `configure()` keeps: those of the settings (config.ts). */
const KEYS = Object.values(SETTINGS).map((s) => s.configKey);
/** The variables the settings fall back to. */
const VARIABLES = Object.values(SETTINGS).map((s) => s.envVar);

/**
 * The host's side of this process: the configuration `configure()` handed over and the sessions
 * made from it. One session per distinct configuration and environment, so configuring the same
 * settings again keeps the session (its client, ledger, journal and lists), and settings that
 * change (a test's next emulator) get a new one.
 */
class DynamicHost {
  /** The stack configuration `configure()` handed over; only our own keys. */
  #configured: ReadonlyMap<string, string> | undefined;
  readonly #sessions = new Map<string, ProviderSession>();

  configure(config: ConfigSource): void {
    const copy = new Map<string, string>();
    for (const key of KEYS) {
      const value = config.get(key);
      if (value !== undefined) copy.set(key, value);
    }
    this.#configured = copy;
    this.session();
  }

  /**
   * The session of the configuration and the `CLOUDINFRA_*` variables as they are now. Its
   * settings are resolved when an operation first needs the API, so a preview's `check` runs
   * before any are set, and a missing setting fails only the calls that need it, with its own
   * message.
   */
  session(env: NodeJS.ProcessEnv = process.env): ProviderSession {
    const configured = this.#configured;
    const key = JSON.stringify([
      ...KEYS.map((k) => configured?.get(k) ?? null),
      ...VARIABLES.map((v) => env[v] ?? null),
    ]);
    let session = this.#sessions.get(key);
    if (session === undefined) {
      const source: ConfigSource | undefined =
        configured === undefined ? undefined : { get: (k) => configured.get(k) };
      session = new ProviderSession(() => resolveSettings(source, env));
      this.#sessions.set(key, session);
    }
    return session;
  }

  async reset(): Promise<void> {
    const made = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#configured = undefined;
    await Promise.all(made.map((s) => s.close()));
  }
}

const host = new DynamicHost();

/** Called by the host once per serialized provider, with the stack's configuration. */
export function configure(req: { readonly config: ConfigSource }): void {
  host.configure(req.config);
}

/** The session of this host's configuration (else of the `CLOUDINFRA_*` variables). */
export function configuredSession(): ProviderSession {
  return host.session();
}

/**
 * For tests that run providers in-process, as a new host starts: forgets the configuration and
 * closes every session (the host's and those of `sessionFor`).
 */
export async function resetHost(): Promise<void> {
  await Promise.all([host.reset(), resetSessions()]);
}

/** `operations` as the dynamic host calls them: each call on the host's session of the moment. */
export function onHost(operations: KindOperations): ResourceImplementation {
  return {
    check: (olds, news) => operations.check(host.session(), olds, news),
    diff: (id, olds, news) => operations.diff(host.session(), id, olds, news),
    create: (inputs) => operations.create(host.session(), inputs),
    read: (id, props) => operations.read(host.session(), id, props),
    update: (id, olds, news) => operations.update(host.session(), id, olds, news),
    delete: (id, props) => operations.delete(host.session(), id, props),
  };
}

/** What each kind's provider module exports: its operations, taking the session first. */
interface KindModule {
  operations: KindOperations;
}

const loaded = new Map<ResourceKind, KindOperations>();

/**
 * The operations of one resource kind, as both flavours serve them. Modules load lazily so that a
 * host serving only tags does not load the server code.
 */
export function operationsOf(kind: string): KindOperations {
  if (!isResourceKind(kind)) {
    throw new Error(
      `pulumi-cloudinfra: this version has no resource kind ${JSON.stringify(kind)}; the stack was written by a newer version of the package: upgrade pulumi-cloudinfra in this project`,
    );
  }
  let operations = loaded.get(kind);
  if (operations === undefined) {
    // Both flavours see the stack's objects noted (stack-objects.ts), through the same wrapper.
    operations = noteStackObjects(kind, (require(providerModule(kind)) as KindModule).operations);
    loaded.set(kind, operations);
  }
  return operations;
}

/** The implementation of one resource kind on the host's session (what older shims call). */
export function resource(kind: string): ResourceImplementation {
  return onHost(dynamicOperationsOf(kind));
}

/**
 * The operations of one resource kind as the dynamic host serves them: a missing name is
 * autonamed from the logical name the class passes as a hidden input (resources/autoname.ts).
 */
function dynamicOperationsOf(kind: string): KindOperations {
  let operations = dynamicLoaded.get(kind);
  if (operations === undefined) {
    operations = withDynamicAutonaming(kind as ResourceKind, operationsOf(kind));
    dynamicLoaded.set(kind, operations);
  }
  return operations;
}

/** {@link dynamicOperationsOf} of each kind, made once: every shim call goes through it. */
const dynamicLoaded = new Map<string, KindOperations>();

const METHODS = new Set(["check", "diff", "create", "read", "update", "delete"]);

/**
 * What every serialized shim calls: `configure`, or one CRUD method of one resource kind. The
 * argument lists are the host's, passed through unchanged.
 */
export async function run(kind: string, method: string, args: unknown[]): Promise<never> {
  if (method === "configure") {
    configure(args[0] as pulumi.dynamic.ConfigureRequest);
    return undefined as never;
  }
  if (!METHODS.has(method)) {
    throw new Error(
      `pulumi-cloudinfra: this version has no provider method ${JSON.stringify(method)}; upgrade pulumi-cloudinfra in this project`,
    );
  }
  const operations = dynamicOperationsOf(kind) as unknown as Record<
    string,
    (...a: unknown[]) => Promise<unknown>
  >;
  return (await operations[method]?.(host.session(), ...args)) as never;
}
