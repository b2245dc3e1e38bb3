// @ts-check
"use strict";
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const v = new pulumi.Config("fleet").getNumber("version") ?? 1;
const PUBS = [
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X deploy@ci",
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICXK2FZGdB9JWuiFsSjCGRZV0I9YmmA5MiMGCZcBd2x1 spare@ci",
];
const planS = cloudinfra.getPlanOutput({ name: "VPS S" });
const planM = cloudinfra.getPlanOutput({ name: "VPS M" });

const keys = [1, 2, 3, 4, 5, 6].map((i) => {
  const name = i === 6 && v >= 2 ? "fleet-key-6b" : `fleet-key-${i}`;
  const pub = PUBS[i - 1];
  return new cloudinfra.SshKey(
    `key-${i}`,
    pub ? { name, publicKey: pub } : { name, generate: true },
  );
});
const servers = keys.map(
  (key, i) =>
    new cloudinfra.Server(`server-${i + 1}`, {
      name: i === 0 && v >= 2 ? "fleet-1-renamed" : `fleet-${i + 1}`,
      planId: i === 4 && v >= 2 ? planM.id : planS.id,
      image: "ubuntu-24.04",
      sshKeyIds: [key.id],
    }),
);
const web = { action: "ACCEPT", proto: "tcp", dport: "443" };
const ssh = { action: "ACCEPT", proto: "tcp", dport: "22", source: "198.51.100.0/24" };
const groups = [1, 2, 3].map(
  (i) =>
    new cloudinfra.SecurityGroup(`group-${i}`, {
      name: `fleet-group-${i}`,
      rules: i === 1 && v >= 2 ? [web, ssh] : [web],
    }),
);
const pairs = [
  [0, 0],
  [0, 1],
  [1, 2],
  [v >= 2 ? 1 : 2, 3],
];
pairs.forEach(([g, s], i) => {
  new cloudinfra.SecurityGroupAttachment(`attachment-${i + 1}`, {
    securityGroupId: /** @type {any} */ (groups[g ?? 0]).id,
    serverId: /** @type {any} */ (servers[s ?? 0]).id,
  });
});
const tagServers = [servers.slice(0, 2), servers.slice(2), []];
tagServers.forEach((members, i) => {
  new cloudinfra.Tag(`tag-${i + 1}`, {
    name: `fleet-tag-${i + 1}`,
    color: i === 0 && v >= 2 ? "#00AA00" : "#0000AA",
    serverIds: members.map((s) => s.id),
  });
});
const role = new cloudinfra.Role("role", {
  name: "fleet-role",
  permissions: v >= 2 ? ["servers:read", "tags:read"] : ["servers:read"],
});
const user = new cloudinfra.User("user", { name: "fleet-bot", type: "api", roleId: role.id });
exports.apiKey = user.apiKey;
