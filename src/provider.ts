/**
 * The stable entry point `pulumi-cloudinfra/provider`, which the serialized shims of every stack
 * require at call time (see resources/shim.ts). Its exports keep their meaning across versions:
 * `run(kind, method, args)` (what shims call), `configure(req)` and `resource(kind)`.
 *
 * For a native provider plugin, which serves several configured providers in one process:
 * `sessionFor(config)` gives the {@link ProviderSession} of one configuration, and
 * `operationsOf(kind)` the kind's implementation that takes it as first argument.
 */
import type * as pulumi from "@pulumi/pulumi";
import { withDynamicAutonaming } from "./resources/autoname";
import type { KindOperations, ResourceImplementation } from "./resources/common";
import { RESOURCE_MODULES, type ResourceKind } from "./resources/kinds";
import { configureSession, onCurrentSession } from "./resources/session";
import { noteStackObjects } from "./resources/stack-objects";

export type { KindOperations, Props, ResourceImplementation } from "./resources/common";
export {
  type ProviderSession,
  type SessionConfig,
  type SessionTimeouts,
  sessionFor,
} from "./resources/session";

/** Called by the host once per serialized provider, with the stack's configuration. */
export function configure(req: pulumi.dynamic.ConfigureRequest): void {
  configureSession(req.config);
}

/** What each kind's provider module exports. */
interface KindModule {
  /** The kind's implementation on the session the host was configured with. */
  implementation: ResourceImplementation;
  /** The same, on an explicit session. */
  operations: KindOperations;
}

const loaded = new Map<ResourceKind, KindModule>();

/**
 * The module of one resource kind. Modules load lazily so that a host serving only tags does not
 * load the server code.
 */
function kindModule(kind: string): KindModule {
  if (!Object.hasOwn(RESOURCE_MODULES, kind)) {
    throw new Error(
      `pulumi-cloudinfra: this version has no resource kind ${JSON.stringify(kind)}; the stack was written by a newer version of the package: upgrade pulumi-cloudinfra in this project`,
    );
  }
  const known = kind as ResourceKind;
  let mod = loaded.get(known);
  if (mod === undefined) {
    // Both flavours see the stack's objects noted (stack-objects.ts), through the same wrapper.
    const operations = noteStackObjects(
      known,
      (require(RESOURCE_MODULES[known]) as KindModule).operations,
    );
    mod = {
      operations,
      implementation: onCurrentSession(withDynamicAutonaming(known, operations)),
    };
    loaded.set(known, mod);
  }
  return mod;
}

/** The implementation of one resource kind, on the session of the host's configuration. */
export function resource(kind: string): ResourceImplementation {
  return kindModule(kind).implementation;
}

/**
 * The implementation of one resource kind on an explicit session (`sessionFor(config)`): each
 * method takes the session as first argument, then the dynamic provider's arguments.
 */
export function operationsOf(kind: string): KindOperations {
  return kindModule(kind).operations;
}

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
  const impl = resource(kind) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  return (await impl[method]?.(...args)) as never;
}
