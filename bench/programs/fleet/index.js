// @ts-check
// 40 generated keys, 40 servers (one key each), 10 security groups, 40 attachments (server i to
// group i mod 10) and 10 tags (4 servers each).
"use strict";
const pulumi = require("@pulumi/pulumi");
// `fleet:flavour` native: the same fleet on the native provider plugin.
const cloudinfra =
  new pulumi.Config("fleet").get("flavour") === "native"
    ? require("pulumi-cloudinfra/native")
    : require("pulumi-cloudinfra");

const size = new pulumi.Config("fleet").getNumber("size") ?? 40;
const groups = Array.from(
  { length: 10 },
  (_, i) =>
    new cloudinfra.SecurityGroup(`group-${i}`, {
      name: `bench-group-${i}`,
      rules: [{ action: "ACCEPT", proto: "tcp", dport: "443" }],
    }),
);
const servers = Array.from({ length: size }, (_, i) => {
  const key = new cloudinfra.SshKey(`key-${i}`, { name: `bench-key-${i}`, generate: true });
  return new cloudinfra.Server(`server-${i}`, {
    name: `bench-${i}`,
    planId: 1,
    image: "ubuntu-24.04",
    sshKeyIds: [key.id],
  });
});
servers.forEach((server, i) => {
  new cloudinfra.SecurityGroupAttachment(`attachment-${i}`, {
    securityGroupId: /** @type {cloudinfra.SecurityGroup} */ (groups[i % 10]).id,
    serverId: server.id,
  });
});
for (let t = 0; t < 10; t++) {
  new cloudinfra.Tag(`tag-${t}`, {
    name: `bench-tag-${t}`,
    color: "#336699",
    serverIds: servers.filter((_, i) => i % 10 === t).map((s) => s.id),
  });
}
