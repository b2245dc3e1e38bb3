/**
 * Keeping a resource's registration cheap at fleet scale: {@link CloudInfraResource}, the base of
 * every resource class, and {@link quietRegistration}, which the native flavour's classes
 * (../native/sdk/resource.ts) use the same way.
 *
 * While a resource registers, the SDK wraps each of its properties in four promises and records a
 * stack trace for every one (`debuggablePromise`), only to print them when a program runs with
 * `PULUMI_DEBUG_PROMISE_LEAKS` set. Programs run under `source-map-support`, which maps every frame
 * of every trace: ~90 µs a trace, ~2.5 ms of CPU per Tag and ~7 ms per Server, which was most of a
 * fleet program's CPU once providers were serialized once per kind, and delayed its first
 * registration (the SDK registers nothing until the program's synchronous part has run) by a
 * second for 140 resources. So the classes register with `Error.stackTraceLimit` at 0, unless that
 * variable asks for the traces.
 *
 * Nothing a user sees changes: the SDK takes the resource's source position with a limit of its
 * own (`Resource.callsites`), and an error thrown while registering gets its stack again, from the
 * constructor of the class, so it still points at the program's line.
 */

import * as pulumi from "@pulumi/pulumi";
import { isAutonamed, LOGICAL_NAME_INPUT } from "./autoname";
import { generatedSecrets, type ResourceKind } from "./kinds";
import { withEveryOutput } from "./outputs";
import { serializedShim } from "./shim";

/**
 * A resource of this package, registered as `pulumi.dynamic.Resource` registers one: type
 * `pulumi-nodejs:dynamic/cloudinfra:<kind>`, the properties with `__provider` (the kind's shim,
 * see ../shim.ts), served by the engine's dynamic-provider host. What differs is only how the
 * `__provider` text is made: `pulumi.dynamic.Resource` runs the SDK's closure serializer in the
 * program, this class takes the same text pinned ({@link serializedShim}). Instances still pass
 * `instanceof pulumi.dynamic.Resource`.
 */
export abstract class CloudInfraResource extends pulumi.CustomResource {
  /**
   * @param kind The resource kind (and class name): `"Tag"`.
   * @param outputs Every declared output of the class (`EveryOutput<X>`, ../outputs.ts): each is
   *   in the property bag, `undefined` where `args` does not set it.
   */
  protected constructor(
    kind: ResourceKind,
    name: string,
    outputs: Readonly<Record<string, true>>,
    args: object,
    opts: pulumi.CustomResourceOptions | undefined,
  ) {
    const quiet = quietRegistration();
    try {
      super(
        `pulumi-nodejs:dynamic/cloudinfra:${kind}`,
        name,
        {
          ...withEveryOutput(outputs, args),
          __provider: serializedShim(kind),
          // The host's `check` gets no URN: the logical name autonaming needs (../autoname.ts).
          ...(isAutonamed(kind) ? { [LOGICAL_NAME_INPUT]: name } : {}),
        },
        withGeneratedSecrets(kind, opts),
      );
    } catch (err) {
      throw quiet.failed(err);
    } finally {
      quiet.done();
    }
  }
}
/**
 * A resource that can also be read by id without being managed (`X.get`): every kind the API can
 * read, so every kind but User.
 */
export abstract class ReadableResource extends CloudInfraResource {
  /**
   * Reads an existing object by id without managing it: nothing is created, changed or deleted,
   * and every `pulumi up` reads it again. The class's documentation says what its outputs hold.
   *
   * @param name The resource name in this program.
   * @param id The object's id (`"7"`).
   * @param opts Resource options; `id` is set from the argument.
   */
  static get<R>(
    this: new (
      name: string,
      args: never,
      opts?: pulumi.CustomResourceOptions,
    ) => R,
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): R {
    // No arguments: with `id` set the engine only reads, and the read needs nothing but the id.
    return new this(name, {} as never, { ...opts, id });
  }
}

/**
 * `X.get(name, id, opts?)`, {@link ReadableResource.get} as a class declares it again to document
 * what its outputs hold: `declare static get: ReadById;` under the kind's own TSDoc.
 */
export type ReadById = typeof ReadableResource.get;

/**
 * The options with the kind's generated secrets (a user's API key, a generated private key) as
 * `additionalSecretOutputs`: the engine stores and shows them as secrets; the provider host
 * cannot return secrets itself.
 */
function withGeneratedSecrets(
  kind: ResourceKind,
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const secrets = generatedSecrets(kind);
  if (secrets.length === 0) return opts;
  return pulumi.mergeOptions(opts, { additionalSecretOutputs: [...secrets] });
}

// `super()` above calls CustomResource's constructor (the class's own prototype), so the SDK's
// serializer never runs; instances keep `pulumi.dynamic.Resource` in their prototype chain for
// programs that test for it.
Object.setPrototypeOf(CloudInfraResource.prototype, pulumi.dynamic.Resource.prototype);

/** One registration: `failed(err)` when `super()` threw, then `done()` in any case. */
export interface QuietRegistration {
  /** Restores the limit and gives `err` the stack of the caller. */
  failed(err: unknown): unknown;
  /** Restores the limit. */
  done(): void;
}

/**
 * Lowers `Error.stackTraceLimit` to 0 for the `super()` call of a resource class (see the top of
 * this module), unless `PULUMI_DEBUG_PROMISE_LEAKS` is set. Use it as {@link CloudInfraResource}
 * does: `failed(err)` in a catch around `super()`, `done()` in its finally.
 */
export function quietRegistration(): QuietRegistration {
  const limit = Error.stackTraceLimit;
  const debugging = (process.env["PULUMI_DEBUG_PROMISE_LEAKS"] ?? "") !== "";
  if (!debugging) Error.stackTraceLimit = 0;
  const done = (): void => {
    Error.stackTraceLimit = limit;
  };
  return {
    failed(err) {
      done();
      if (!debugging && err instanceof Error) Error.captureStackTrace(err);
      return err;
    },
    done,
  };
}
