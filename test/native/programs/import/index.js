// @ts-check
// What a user writes to take over objects that exist already (ids in `adopt:ids`), on the native
// provider: the same inputs the objects have, and, in `option` mode, the `import` option.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra/native");

const config = new pulumi.Config("adopt");
/** @type {Record<string, string>} */
const ids = JSON.parse(config.require("ids"));
const mode = config.require("mode");
/** @param {string} kind */
const opts = (kind) => (mode === "option" ? { import: ids[kind] } : {});

new cloudinfra.SshKey(
  "key",
  { name: "imp-key", publicKey: config.require("publicKey") },
  opts("sshKey"),
);
new cloudinfra.Tag("tag", { name: "imp-tag", color: "#123456", data: "owner=ops" }, opts("tag"));
new cloudinfra.Role(
  "role",
  { name: "imp-role", description: "readers", permissions: ["tags:read"] },
  opts("role"),
);
new cloudinfra.SecurityGroup(
  "fw",
  { name: "imp-fw", rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }] },
  opts("group"),
);
new cloudinfra.Server(
  "web",
  { name: "imp-web", planId: Number(config.require("planId")), image: config.require("image") },
  opts("server"),
);
new cloudinfra.SecurityGroupAttachment(
  "att",
  { securityGroupId: Number(ids["group"]), serverId: Number(ids["server"]) },
  opts("attachment"),
);
if (config.getBoolean("user")) {
  new cloudinfra.User(
    "bot",
    { name: "bot", type: "api", roleId: Number(ids["role"]) },
    { import: "1" },
  );
}
