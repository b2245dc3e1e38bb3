import type * as pulumi from "@pulumi/pulumi";
import type * as entry from "../provider";
import type { ResourceKind } from "./kinds";

/**
 * The provider object Pulumi stores as each resource's `__provider` (./README.md): it captures
 * nothing but `kind` and requires the stable entry point at call time (text budget 2.5 KiB). This
 * module imports nothing at run time, which the serializer would capture. One object per kind,
 * kept: the SDK caches a serialized provider by object identity.
 */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  SHIMS[kind] ??= makeShim(kind);
  return SHIMS[kind];
}

const SHIMS: Partial<Record<ResourceKind, pulumi.dynamic.ResourceProvider>> = {};

function makeShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // `never` lets each method return what the entry point's dispatcher returns for it.
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
 * What `pulumi.dynamic.Resource` would store for {@link providerShim}, byte for byte, without
 * running the closure serializer in the program (~11 MB of peak memory) nor the `Output` the SDK
 * makes of its result (~40 MB for 1000 tags). Pinned, it also survives serializer changes.
 */
export function serializedShim(kind: ResourceKind): string {
  TEXTS[kind] ??= shimText(kind);
  return TEXTS[kind];
}

const TEXTS: Partial<Record<ResourceKind, string>> = {};

/** The shim's methods and their parameters, in the order the serializer numbers them. */
const METHODS = [
  ["configure", "r"],
  ["check", "o, n"],
  ["diff", "i, o, n"],
  ["create", "n"],
  ["read", "i, p"],
  ["update", "i, o, n"],
  ["delete", "i, p"],
] as const;

/** One serialized function: the serializer's scaffolding around `body`, with `scope` captured. */
function serializedFunction(id: number, arity: number, scope: string, body: string): string {
  const params = Array.from({ length: arity }, (_, i) => `__${i}`).join(", ");
  return `function __f${id}(${params}) {
  return (function() {
    with({ ${scope}, this: undefined, arguments: undefined }) {

return ${body};

    }
  }).apply(undefined, undefined).apply(this, arguments);
}
`;
}

/** `__f2` is `run`: the methods are `__f1` (configure), then `__f3` on. */
const idOf = (i: number): number => (i === 0 ? 1 : i + 2);

function shimText(kind: ResourceKind): string {
  const provider = METHODS.map(([m], i) => `${m}: __f${idOf(i)}`).join(", ");
  const run = `(method, args) => require("pulumi-cloudinfra/provider").run(kind, method, args)`;
  return [
    `exports.handler = __f0;\n\nvar __provider = {${provider}};\n`,
    serializedFunction(2, 2, `kind: ${JSON.stringify(kind)}`, run),
    ...METHODS.map(([m, ps], i) =>
      serializedFunction(
        idOf(i),
        ps.split(", ").length,
        "run: __f2",
        `(${ps}) => run("${m}", [${ps}])`,
      ),
    ),
    serializedFunction(0, 0, "provider: __provider", "() => provider"),
  ].join("\n");
}
