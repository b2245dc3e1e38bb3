/**
 * How a native resource class is made: the same arguments and declared outputs as the dynamic
 * class of the kind (`ServerArgs`, `Server`'s outputs and their TSDoc), registered with the
 * schema's token (`cloudinfra:index:Server`) for the native plugin to serve. The output names and
 * the secret outputs are read from the shipped package schema, which is generated from those
 * classes, so the two flavours cannot drift apart.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "../../resources/kinds";
import { type OutputNames, withEveryOutput } from "../../resources/outputs";
import { quietRegistration } from "../../resources/registration";
import { resourceToken, type SchemaResources, schemaOutputs } from "../package";

/** An instance: a `CustomResource` with the outputs the dynamic class `R` declares. */
export type NativeResource<R> = pulumi.CustomResource & Readonly<Pick<R, OutputNames<R>>>;

/** A native resource class: `new Server(name, args, opts)` and `Server.get(name, id, opts)`. */
export interface NativeResourceClass<Args, R> {
  new (name: string, args: Args, opts?: pulumi.CustomResourceOptions): NativeResource<R>;
  /**
   * Reads an existing object by id without managing it (as the dynamic class's `get`); to take
   * one over, use `pulumi import` or the `import` resource option instead.
   */
  get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): NativeResource<R>;
}

/** The native class of `kind`, typed with the dynamic class's arguments `Args` and outputs of `R`. */
export function nativeResourceClass<Args extends object, R>(
  resources: SchemaResources,
  kind: ResourceKind,
): NativeResourceClass<Args, R> {
  const { names, secrets } = schemaOutputs(resources, kind);
  const token = resourceToken(kind);
  class Native extends pulumi.CustomResource {
    constructor(name: string, args: Args, opts?: pulumi.CustomResourceOptions) {
      // Without the SDK's stack trace per property promise, as the dynamic classes register.
      const quiet = quietRegistration();
      try {
        super(
          token,
          name,
          withEveryOutput(names, args),
          pulumi.mergeOptions(opts, { additionalSecretOutputs: secrets }),
        );
      } catch (err) {
        throw quiet.failed(err);
      } finally {
        quiet.done();
      }
    }

    static get(
      name: string,
      id: pulumi.Input<pulumi.ID>,
      opts?: pulumi.CustomResourceOptions,
    ): Native {
      return new Native(name, {} as Args, { ...opts, id });
    }
  }
  Object.defineProperty(Native, "name", { value: kind });
  return Native as unknown as NativeResourceClass<Args, R>;
}
