// @ts-check
// The web team's stack (docs/drift-and-adoption.md). What the team always managed: one tag.
// Below `adopted`: the objects someone made by hand, declared as `pulumi import` generates them
// from the import file that `cloudinfra-inventory` wrote (the same inputs, the same names, and
// references where one object names another), so the preview after the import has no diff.
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra/native");

new cloudinfra.Tag("team-web", { name: "team-web", color: "#0ea5e9" });

if (new pulumi.Config("adoption").getBoolean("adopted")) {
  new cloudinfra.SshKey("oncall", {
    name: "oncall",
    publicKey:
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X oncall@laptop",
  });
  const hotfixSsh = new cloudinfra.SecurityGroup("hotfix-ssh", {
    name: "hotfix-ssh",
    description: "opened during the incident",
    rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }],
  });
  new cloudinfra.Role("auditors", {
    name: "auditors",
    description: "read-only",
    permissions: ["servers:read"],
  });
  const debugBox = new cloudinfra.Server("debug-box", {
    name: "debug-box",
    planId: 1,
    image: "ubuntu-24.04",
  });
  new cloudinfra.Tag("incident-42", {
    name: "incident-42",
    color: "#ff0000",
    serverIds: [debugBox.id],
  });
  new cloudinfra.SecurityGroupAttachment("hotfix-ssh-on-debug-box", {
    securityGroupId: hotfixSsh.id,
    serverId: debugBox.id,
  });
}
