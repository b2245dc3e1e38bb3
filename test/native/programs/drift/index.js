// @ts-check
// Version 2 changes one field of the tag and one of the role; the rest stays.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra/native");

const v = new pulumi.Config("drift").requireNumber("version");

new cloudinfra.Tag("env", { name: "env", color: v >= 2 ? "#222222" : "#111111", data: "d1" });
new cloudinfra.Role("ops", {
  name: "ops",
  description: v >= 2 ? "operators" : "ops team",
  permissions: ["tags:read"],
});
new cloudinfra.SecurityGroup("fw", {
  name: "fw",
  rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "198.51.100.0/24" }],
});
