// @ts-check
// Before: `require("pulumi-cloudinfra")`. After: `require("pulumi-cloudinfra/native")`, each
// resource with an alias from its dynamic type, so the engine keeps the same object (no delete,
// no create): docs/native-provider.md, "Migrating from the dynamic resources".
"use strict";
const pulumi = require("@pulumi/pulumi");

const native = new pulumi.Config("migrate").require("flavour") === "native";
const cloudinfra = native ? require("pulumi-cloudinfra/native") : require("pulumi-cloudinfra");
/** @param {string} kind */
const from = (kind) =>
  native ? { aliases: [{ type: `pulumi-nodejs:dynamic/cloudinfra:${kind}` }] } : {};

const key = new cloudinfra.SshKey("key", { name: "deploy", generate: true }, from("SshKey"));
const role = new cloudinfra.Role(
  "readers",
  { name: "readers", permissions: ["tags:read"] },
  from("Role"),
);
const bot = new cloudinfra.User("bot", { name: "bot", type: "api", roleId: role.id }, from("User"));
const fw = new cloudinfra.SecurityGroup(
  "fw",
  { name: "fw", rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }] },
  from("SecurityGroup"),
);
const web = new cloudinfra.Server(
  "web",
  { name: "web", planId: 1, image: "ubuntu-24.04", sshKeyIds: [key.id] },
  from("Server"),
);
new cloudinfra.SecurityGroupAttachment(
  "web-fw",
  { securityGroupId: fw.id, serverId: web.id },
  from("SecurityGroupAttachment"),
);
new cloudinfra.Tag("env", { name: "env", color: "#111111", serverIds: [web.id] }, from("Tag"));

exports.botApiKey = bot.apiKey;
exports.privateKey = key.privateKey;
