// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const count = new pulumi.Config("tags").requireNumber("count");
for (let i = 0; i < count; i++) {
  new cloudinfra.Tag(`tag-${i}`, { name: `bench-tag-${i}`, color: "#336699" });
}
