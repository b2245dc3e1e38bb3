// @ts-check
"use strict";
const cloudinfra = require("pulumi-cloudinfra");

// No `name`: the provider names each `<resource name>-<7 random characters>`.
const tag = new cloudinfra.Tag("web", { color: "#123456" });
const group = new cloudinfra.SecurityGroup("fw", {
  rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }],
});
// A given name is used as it is.
const named = new cloudinfra.Tag("named", { name: "exactly-this", color: "#654321" });
exports.tagName = tag.name;
exports.groupName = group.name;
exports.namedName = named.name;
