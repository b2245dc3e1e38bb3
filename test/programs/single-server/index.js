// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const name = new pulumi.Config("single").get("name") ?? "solo";
const key = new cloudinfra.SshKey("key", { name: "solo-key", generate: true });
const server = new cloudinfra.Server("server", {
  name,
  planId: cloudinfra.getPlanOutput({ name: "VPS S" }).id,
  image: "ubuntu-24.04",
  sshKeyIds: [key.id],
});
exports.serverId = server.id;
