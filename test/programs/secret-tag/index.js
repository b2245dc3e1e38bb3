// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const tag = new cloudinfra.Tag("vault", {
  name: "vault",
  color: "#7C3AED",
  data: new pulumi.Config("secret-tag").requireSecret("data"),
});
exports.data = tag.data;
