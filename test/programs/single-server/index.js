// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const config = new pulumi.Config("single");
const name = config.get("name") ?? "solo";
const adoptId = config.get("adoptServer");
const key = new cloudinfra.SshKey("key", { name: "solo-key", generate: true });
const server = new cloudinfra.Server("server", {
  name,
  planId: cloudinfra.getPlanOutput({ name: "VPS S" }).id,
  image: "ubuntu-24.04",
  sshKeyIds: [key.id],
  ...(adoptId ? { adoptId } : {}),
});
exports.serverId = server.id;
