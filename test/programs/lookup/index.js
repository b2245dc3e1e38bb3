// @ts-check
// `X.get(name, id)` for every kind, exporting every output the resource object has, by kind.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const config = new pulumi.Config("lookup");
const kinds = ["Server", "Tag", "SshKey", "Role", "SecurityGroup", "SecurityGroupAttachment"];
for (const kind of kinds) {
  /** @type {Record<string, unknown>} */
  const resource = /** @type {any} */ (cloudinfra)[kind].get(`get-${kind}`, config.require(kind));
  const names = Object.keys(resource).filter(
    (k) =>
      pulumi.Output.isInstance(resource[k]) && !["urn", "id"].includes(k) && !k.startsWith("__"),
  );
  exports[kind] = pulumi
    .all(names.map((n) => resource[n]))
    .apply((values) =>
      Object.fromEntries(
        names.map((n, i) => [n, values[i] === undefined ? "(undefined)" : values[i]]),
      ),
    );
}
