// @ts-check
// A server made with an SSH key and a generated key, made outside Pulumi (ids in `adopt:ids`),
// declared as their program would have made them, with the `import` option; or, with
// `adopt:get`, only read by id with `.get()`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra/native");

const config = new pulumi.Config("adopt");
/** @type {Record<string, string>} */
const ids = JSON.parse(config.require("ids"));
const keyIds = JSON.parse(config.get("keyIds") ?? JSON.stringify([Number(ids["generated"])]));

if (config.getBoolean("get")) {
  const seen = cloudinfra.Server.get("seen", ids["server"]);
  const seenKey = cloudinfra.SshKey.get("seen-key", ids["generated"]);
  exports.seenName = seen.name;
  exports.seenStatus = seen.status;
  exports.seenKeyFingerprint = seenKey.fingerprint;
} else {
  const key = new cloudinfra.SshKey(
    "generated",
    { name: "gen-key", generate: true },
    { import: ids["generated"] },
  );
  const web = new cloudinfra.Server(
    "web",
    { name: "keyed-web", planId: 1, image: "ubuntu-24.04", sshKeyIds: keyIds },
    { import: ids["server"] },
  );
  exports.keyFingerprint = key.fingerprint;
  exports.serverKeys = web.sshKeyIds;
}
