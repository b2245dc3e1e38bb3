import type * as pulumi from "@pulumi/pulumi";
import type * as entry from "../provider";
import type { ResourceKind } from "./kinds";

/**
 * The provider object that Pulumi serializes into each resource's `__provider` and that a separate
 * host process later loads, possibly after this package was upgraded. It must stay a thin, stable
 * shim: each method requires the package's stable entry point at call time and delegates, so it
 * captures nothing but `kind` (no client, agent, class or secret), old state runs the installed
 * code, and the serialized text stays small (~2.2 KB; budget 2.5 KiB, guarded by test/provider-host).
 *
 * The serializer wraps every function in ~190 bytes of scaffolding, so the methods are one-line
 * calls to one captured helper. This module must import nothing at run time: the serializer would
 * capture it.
 */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let shim = shims.get(kind);
  if (shim === undefined) {
    shim = makeShim(kind);
    shims.set(kind, shim);
  }
  return shim;
}

/**
 * One shim object per kind for the whole program. The SDK caches a serialized provider by object
 * identity, so a new object per resource would be serialized again for every resource: 12–16 ms
 * of CPU and ~0.85 MB each (the closure serializer parses every function), which made
 * serialization ~43% of a 130-resource program's CPU and delayed its first registration by
 * seconds. Never referenced by a shim's methods, so never captured.
 */
const shims = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

function makeShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // `never` lets each method return what the entry point's dispatcher returns for it; the host
  // checks nothing but the shape, and `run` is typed per method on the other side.
  const run = (method: string, args: unknown[]): Promise<never> =>
    (require("pulumi-cloudinfra/provider") as typeof entry).run(kind, method, args);
  return {
    configure: (r) => run("configure", [r]),
    check: (o, n) => run("check", [o, n]),
    diff: (i, o, n) => run("diff", [i, o, n]),
    create: (n) => run("create", [n]),
    read: (i, p) => run("read", [i, p]),
    update: (i, o, n) => run("update", [i, o, n]),
    delete: (i, p) => run("delete", [i, p]),
  };
}
