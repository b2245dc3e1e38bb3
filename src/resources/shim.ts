import type * as pulumi from "@pulumi/pulumi";
import type * as entry from "../provider";
import type { ResourceKind } from "./kinds";

/**
 * The provider object that Pulumi serializes into each resource's `__provider` and that a separate
 * host process later loads, possibly after this package was upgraded. It must stay a thin, stable
 * shim: each method requires the package's stable entry point at call time and delegates, so it
 * captures nothing but `kind` (no client, agent, class or secret), old state runs the installed
 * code, and the serialized text stays small (budget: 2 KiB, guarded by test/engine).
 *
 * This module must import nothing at run time: the serializer would capture it.
 */
export function providerShim(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      (require("pulumi-cloudinfra/provider") as typeof entry).configure(req);
    },
    async check(olds, news) {
      return (require("pulumi-cloudinfra/provider") as typeof entry)
        .resource(kind)
        .check(olds, news);
    },
    async diff(id, olds, news) {
      return (require("pulumi-cloudinfra/provider") as typeof entry)
        .resource(kind)
        .diff(id, olds, news);
    },
    async create(inputs) {
      return (require("pulumi-cloudinfra/provider") as typeof entry).resource(kind).create(inputs);
    },
    async read(id, props) {
      return (require("pulumi-cloudinfra/provider") as typeof entry).resource(kind).read(id, props);
    },
    async update(id, olds, news) {
      return (require("pulumi-cloudinfra/provider") as typeof entry)
        .resource(kind)
        .update(id, olds, news);
    },
    async delete(id, props) {
      return (require("pulumi-cloudinfra/provider") as typeof entry)
        .resource(kind)
        .delete(id, props);
    },
  };
}
