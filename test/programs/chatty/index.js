// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const greeting = new pulumi.Config().get("greeting") ?? "hello";
console.log(`${greeting} from console.log`);
console.error("and from console.error");
const key = new cloudinfra.SshKey("key", { name: "chatty-key", generate: true });
const server = new cloudinfra.Server("server", {
  name: "chatty",
  planId: cloudinfra.getPlanOutput({ name: "VPS S" }).id,
  image: "ubuntu-24.04",
  sshKeyIds: [key.id],
});
server.id.apply((id) => pulumi.log.info(`server ${id} is up`, server));
new cloudinfra.Tag("tag", { name: "chatty", color: "#0EA5E9", serverIds: [server.id] });
exports.greeting = greeting;
exports.serverId = server.id;
exports.privateKey = key.privateKey;
