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
import type { ResourceKind } from "./kinds";
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
   * @param props Every declared output, and the arguments (`withEveryOutput`, ../outputs.ts).
   */
  protected constructor(
    kind: ResourceKind,
    name: string,
    props: Record<string, unknown>,
    opts: pulumi.CustomResourceOptions | undefined,
  ) {
    const quiet = quietRegistration();
    try {
      super(
        `pulumi-nodejs:dynamic/cloudinfra:${kind}`,
        name,
        { ...props, __provider: serializedShim(kind) },
        opts,
      );
    } catch (err) {
      throw quiet.failed(err);
    } finally {
      quiet.done();
    }
  }
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
