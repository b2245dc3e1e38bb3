// @ts-check
// The dynamic flavour's way to take over objects made outside Pulumi (the engine cannot import
// into a dynamic provider): `adoptId`, on a server made with an SSH key and a generated key.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const config = new pulumi.Config("adopt");
/** @type {Record<string, string>} */
const ids = JSON.parse(config.require("ids"));

const key = new cloudinfra.SshKey("generated", {
  name: "gen-key",
  generate: true,
  adoptId: ids["generated"],
});
const web = new cloudinfra.Server("web", {
  name: "keyed-web",
  planId: 1,
  image: "ubuntu-24.04",
  sshKeyIds: [key.id],
  adoptId: ids["server"],
});
exports.serverKeys = web.sshKeyIds;
