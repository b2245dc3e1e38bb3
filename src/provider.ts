/**
 * The stable entry point `pulumi-cloudinfra/provider`, which the serialized shims of every stack
 * require at call time (see resources/shim.ts). Its exports keep their meaning across versions:
 * `run(kind, method, args)` (what shims call), `configure(req)` and `resource(kind)`.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceImplementation } from "./resources/common";
import { RESOURCE_MODULES, type ResourceKind } from "./resources/kinds";
import { configureSession } from "./resources/session";

/** Called by the host once per serialized provider, with the stack's configuration. */
export function configure(req: pulumi.dynamic.ConfigureRequest): void {
  configureSession(req.config);
}

const loaded = new Map<ResourceKind, ResourceImplementation>();

/**
 * The implementation of one resource kind. Modules load lazily so that a host serving only tags
 * does not load the server code.
 */
export function resource(kind: string): ResourceImplementation {
  if (!Object.hasOwn(RESOURCE_MODULES, kind)) {
    throw new Error(
      `pulumi-cloudinfra: this version has no resource kind ${JSON.stringify(kind)}; the stack was written by a newer version of the package: upgrade pulumi-cloudinfra in this project`,
    );
  }
  const known = kind as ResourceKind;
  let impl = loaded.get(known);
  if (impl === undefined) {
    const mod = require(RESOURCE_MODULES[known]) as { implementation: ResourceImplementation };
    impl = mod.implementation;
    loaded.set(known, impl);
  }
  return impl;
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
