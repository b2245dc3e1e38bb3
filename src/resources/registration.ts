/** The base of every resource class: ./README.md, "The class". */
import * as pulumi from "@pulumi/pulumi";
import { type SchemaResources, schemaOutputs, schemaResources } from "../native/package";
import { LOGICAL_NAME_INPUT } from "./autoname";
import { generatedSecrets, KINDS, type ResourceKind } from "./kinds";
import { withEveryOutput } from "./outputs";
import { serializedShim } from "./shim";

/** `Args`: the class's arguments (`TagArgs`). */
export abstract class CloudInfraResource<Args extends object> extends pulumi.CustomResource {
  /** What a class registers: `protected static override readonly kind = "Tag"`. */
  declare protected static readonly kind: ResourceKind;

  constructor(name: string, args: Args, opts?: pulumi.CustomResourceOptions) {
    const { kind } = new.target;
    const secrets = generatedSecrets(kind);
    const quiet = quietRegistration();
    try {
      super(
        `pulumi-nodejs:dynamic/cloudinfra:${kind}`,
        name,
        {
          ...withEveryOutput(outputNames(kind), args),
          __provider: serializedShim(kind),
          // The host's `check` gets no URN: the logical name autonaming needs (../autoname.ts).
          ...(KINDS[kind].named ? { [LOGICAL_NAME_INPUT]: name } : {}),
        },
        // The host cannot return secrets: the engine marks the generated ones.
        secrets.length === 0
          ? opts
          : pulumi.mergeOptions(opts, { additionalSecretOutputs: [...secrets] }),
      );
    } catch (err) {
      throw quiet.failed(err);
    } finally {
      quiet.done();
    }
  }
}
/** Every kind but User: it can be read by id without being managed (`X.get`). */
export abstract class ReadableResource<Args extends object> extends CloudInfraResource<Args> {
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

/** {@link ReadableResource.get} as a class declares it again under its own TSDoc. */
export type ReadById = typeof ReadableResource.get;

let schema: SchemaResources | undefined;

function outputNames(kind: ResourceKind): string[] {
  schema ??= schemaResources();
  return schemaOutputs(schema, kind).names;
}

// `super()` calls CustomResource's constructor, so the SDK's serializer never runs; instances keep
// `pulumi.dynamic.Resource` in their prototype chain for programs that test for it.
Object.setPrototypeOf(CloudInfraResource.prototype, pulumi.dynamic.Resource.prototype);

/**
 * While a resource registers, the SDK records a stack trace per property promise (printed only
 * under `PULUMI_DEBUG_PROMISE_LEAKS`), ~90 µs each: around `super()`, this sets
 * `Error.stackTraceLimit` to 0 unless that variable is set. `failed(err)` in its catch (gives
 * `err` the caller's stack), `done()` after.
 */
export function quietRegistration(): { failed(err: unknown): unknown; done(): void } {
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
