// @ts-check
// The quick start: a generated SSH key, a small VPS with the newest Ubuntu, and a tag on it.
// Settings come from `cloudinfra:*` stack config or the CLOUDINFRA_* variables that
// `npm run emulator` prints, so by default this runs against the local emulator.
// `pulumi config set flavour native` runs the same program on the native provider plugin
// (`pulumi-cloudinfra/native`, docs/native-provider.md).
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra =
  new pulumi.Config().get("flavour") === "native"
    ? require("pulumi-cloudinfra/native")
    : require("pulumi-cloudinfra");

const plan = cloudinfra.getPlanOutput({ name: "VPS S" });
const image = cloudinfra.getImageOutput({ nameRegex: "^ubuntu-", mostRecent: true });

const key = new cloudinfra.SshKey("deployer", { name: "deployer", generate: true });

const server = new cloudinfra.Server("web", {
  name: "web-1",
  planId: plan.id,
  image: image.name,
  sshKeyIds: [key.id],
});

new cloudinfra.Tag("web", { name: "web", color: "#0EA5E9", serverIds: [server.id] });

exports.ip = server.ip;
exports.status = server.status;
/** Secret in state and in `pulumi stack output` (use --show-secrets to read it). */
exports.privateKey = key.privateKey;
