// @ts-check
// One user's program in versions: `scenario:version` (1 to 8) selects what it declares. Each
// version changes fields of every kind: in place (2-5), forcing a replacement (6, 7: default
// order, then delete-before-replace with dependents), a resource removed (8).
"use strict";
const pulumi = require("@pulumi/pulumi");
// `scenario:flavour` native runs the same program on the native provider (test/native/scenarios.test.ts).
const cloudinfra =
  new pulumi.Config("scenario").get("flavour") === "native"
    ? require("pulumi-cloudinfra/native")
    : require("pulumi-cloudinfra");

const v = new pulumi.Config("scenario").requireNumber("version");
const from = (version, later, earlier) => (v >= version ? later : earlier);

const PUB_A =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X deploy@ci";
const PUB_SPARE =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICXK2FZGdB9JWuiFsSjCGRZV0I9YmmA5MiMGCZcBd2x1 spare@ci";
const ssh = { action: "ACCEPT", proto: "tcp", dport: "22", source: "198.51.100.0/24" };
const https = { action: "ACCEPT", proto: "tcp", dport: "443" };

const planS = cloudinfra.getPlanOutput({ name: "VPS S" });
const planM = cloudinfra.getPlanOutput({ name: "VPS M" });
const ubuntu = cloudinfra.getImageOutput({ nameRegex: "^ubuntu-", mostRecent: true });
const permissions = cloudinfra.getPermissionsOutput();
const germany = cloudinfra.getCountryOutput({ code: "DE" });

const keyA = new cloudinfra.SshKey("key-a", {
  name: from(7, "key-a-renamed", "key-a"),
  publicKey: PUB_A,
});
const keyGen = new cloudinfra.SshKey("key-gen", { name: "key-gen", generate: true });
const spare = new cloudinfra.SshKey("spare", { name: "spare", publicKey: PUB_SPARE });

const ops =
  v < 8
    ? new cloudinfra.Role("ops", {
        name: from(2, "operators", "ops"),
        description: from(3, "ops people", "ops team"),
        permissions: from(4, ["servers:read", "tags:read"], ["servers:read"]),
      })
    : undefined;
const readers = new cloudinfra.Role("readers", { name: "readers", permissions: ["tags:read"] });
const bot = new cloudinfra.User("bot", {
  name: from(6, "bot-2", "bot"),
  type: "api",
  roleId: v >= 2 || !ops ? readers.id : ops.id,
});

const fw = new cloudinfra.SecurityGroup("fw", {
  name: from(2, "firewall", "fw"),
  description: from(3, "fw two", "fw one"),
  rules: from(4, [ssh, https], [ssh]),
});
const fw2 = new cloudinfra.SecurityGroup("fw2", { name: "fw2", rules: [https] });

const app = new cloudinfra.Server("app", {
  name: from(2, "app-renamed", "app"),
  planId: planS.id,
  image: ubuntu.name,
  sshKeyIds: [keyA.id],
  firewallEnabled: v >= 3,
  powerState: from(4, "stopped", "running"),
});
const db = new cloudinfra.Server("db", {
  name: "db",
  planId: from(6, planM.id, planS.id),
  image: ubuntu.name,
  sshKeyIds: [keyGen.id],
  securityGroupIds: from(3, [fw2.id], []),
});

const attachment = new cloudinfra.SecurityGroupAttachment("app-fw", {
  securityGroupId: fw.id,
  serverId: app.id,
});

const env = new cloudinfra.Tag("env", {
  name: from(2, "environment", "env"),
  color: from(3, "#333333", "#111111"),
  data: from(4, "d2", "d1"),
  serverIds: from(5, [app.id, db.id], [app.id]),
});
if (v < 8) new cloudinfra.Tag("temp", { name: "temp", color: "#222222" });

// Read without managing: every declared output holds its value.
const appAgain = cloudinfra.Server.get("app-read", app.id);
const fwAgain = cloudinfra.SecurityGroup.get("fw-read", fw.id);

exports.appIp = app.ip;
exports.appStatus = app.status;
exports.appReadName = appAgain.name;
exports.fwReadRules = fwAgain.rules;
exports.attachmentId = attachment.id;
exports.envTagId = env.tagId;
exports.botApiKey = bot.apiKey;
exports.generatedKey = keyGen.privateKey;
exports.spareFingerprint = spare.fingerprint;
exports.permissionCount = permissions.apply((p) => p.permissions.length);
exports.germanyCallingCode = germany.callingCode;
