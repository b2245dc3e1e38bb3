import type * as pulumi from "@pulumi/pulumi";
import type * as entry from "../provider";
import type { ResourceKind } from "./kinds";

/**
 * The provider object that Pulumi stores, serialized, as each resource's `__provider`, and that a
 * separate host process later loads, possibly after this package was upgraded. It must stay a
 * thin, stable shim: each method requires the package's stable entry point at call time and
 * delegates, so it captures nothing but `kind` (no client, agent, class or secret), old state runs
 * the installed code, and the serialized text stays small (~2.2 KB; budget 2.5 KiB, guarded by
 * test/provider-host).
 *
 * The serializer wraps every function in ~190 bytes of scaffolding, so the methods are one-line
 * calls to one captured helper. This module must import nothing at run time: the serializer would
 * capture it.
 *
 * Programs do not serialize it: they register {@link serializedShim}, the text the SDK's closure
 * serializer makes of this object, pinned (test/provider-host/serialization.test.ts proves the
 * two equal for every kind).
 */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let shim = SHIMS.get(kind);
  if (shim === undefined) {
    shim = makeShim(kind);
    SHIMS.set(kind, shim);
  }
  return shim;
}

/**
 * One shim object per kind, made on first use and kept. The SDK caches a serialized provider by
 * object identity, so a new object per resource would be serialized again for every resource:
 * 12–16 ms of CPU and ~0.85 MB each (the closure serializer parses every function). Never
 * referenced by a shim's methods, so never captured; keyed by the kind, so this module needs no
 * list of kinds (it imports nothing at run time).
 */
const SHIMS = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();

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

/**
 * The `__provider` text of a kind's resources: what `pulumi.dynamic.Resource` would store for
 * {@link providerShim}, byte for byte, without running the closure serializer in the program.
 * The text depends on the kind alone, yet serializing costs a program an inspector session and a
 * parse of every function of the shim (~11 MB of peak memory), and the `Output` the SDK makes of
 * the result costs every resource an asynchronous step with a debug stack trace (~40 MB of peak
 * memory for 1000 tags). Pinning it also keeps the stored text the same when the SDK's
 * serializer changes its output. One string per kind, shared by every resource of the kind.
 */
export function serializedShim(kind: ResourceKind): string {
  let text = TEXTS.get(kind);
  if (text === undefined) {
    text = shimText(kind);
    TEXTS.set(kind, text);
  }
  return text;
}

/** The text of each kind, made on first use: one string shared by every resource of the kind. */
const TEXTS = new Map<ResourceKind, string>();

function shimText(kind: ResourceKind): string {
  return `exports.handler = __f0;

var __provider = {configure: __f1, check: __f3, diff: __f4, create: __f5, read: __f6, update: __f7, delete: __f8};

function __f2(__0, __1) {
  return (function() {
    with({ kind: ${JSON.stringify(kind)}, this: undefined, arguments: undefined }) {

return (method, args) => require("pulumi-cloudinfra/provider").run(kind, method, args);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f1(__0) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (r) => run("configure", [r]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f3(__0, __1) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (o, n) => run("check", [o, n]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f4(__0, __1, __2) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (i, o, n) => run("diff", [i, o, n]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f5(__0) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (n) => run("create", [n]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f6(__0, __1) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (i, p) => run("read", [i, p]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f7(__0, __1, __2) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (i, o, n) => run("update", [i, o, n]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f8(__0, __1) {
  return (function() {
    with({ run: __f2, this: undefined, arguments: undefined }) {

return (i, p) => run("delete", [i, p]);

    }
  }).apply(undefined, undefined).apply(this, arguments);
}

function __f0() {
  return (function() {
    with({ provider: __provider, this: undefined, arguments: undefined }) {

return () => provider;

    }
  }).apply(undefined, undefined).apply(this, arguments);
}
`;
}
