// @ts-check
// Two accounts in one program on the native provider: what the default provider manages and what
// the explicit provider `other` manages live in different accounts, even under the same names.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra/native");

const stack = new pulumi.Config("cloudinfra");
const other = new cloudinfra.Provider("other", {
  endpoint: stack.require("endpoint"),
  caCert: stack.require("caCert"),
  apiKey: new pulumi.Config("accounts").requireSecret("otherApiKey"),
});
const onOther = { provider: other };

new cloudinfra.Tag("ours", { name: "shared", color: "#111111" });
new cloudinfra.Tag("theirs", { name: "shared", color: "#222222" }, onOther);
new cloudinfra.Role("our-role", { name: "readers", permissions: ["tags:read"] });
new cloudinfra.Role("their-role", { name: "readers", permissions: ["servers:read"] }, onOther);
const theirKey = new cloudinfra.SshKey("their-key", { name: "deploy", generate: true }, onOther);

exports.ourAccount = cloudinfra.getAccountOutput(undefined).apply((a) => a.account.id);
exports.theirAccount = cloudinfra.getAccountOutput(undefined, onOther).apply((a) => a.account.id);
exports.theirPrivateKey = theirKey.privateKey;
