// A web fleet: `webCount` servers (config, default 2) on the smallest plan with the newest Debian,
// one security group for all of them, the team's deploy key, and a tag that lists every server.
import * as pulumi from "@pulumi/pulumi";
import * as cloudinfra from "pulumi-cloudinfra";

const config = new pulumi.Config();
const webCount = config.getNumber("webCount") ?? 2;
const officeCidr = config.get("officeCidr") ?? "203.0.113.0/24";
const deployKey =
  config.get("deployKey") ??
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X deploy@ci";

const plan = cloudinfra.getPlanOutput({ name: "VPS S" });
const image = cloudinfra.getImageOutput({ nameRegex: "^debian-", mostRecent: true });

const key = new cloudinfra.SshKey("deploy", { name: "deploy", publicKey: deployKey });

const web = new cloudinfra.SecurityGroup("web", {
  name: "web",
  description: "SSH from the office, HTTP and HTTPS from anywhere",
  rules: [
    { action: "ACCEPT", proto: "tcp", dport: "22", source: officeCidr },
    { action: "ACCEPT", proto: "tcp", dport: "80" },
    { action: "ACCEPT", proto: "tcp", dport: "443" },
  ],
});

const servers: cloudinfra.Server[] = [];
for (let i = 1; i <= webCount; i++) {
  const server = new cloudinfra.Server(`web-${i}`, {
    name: `web-${i}`,
    planId: plan.id,
    image: image.name,
    sshKeyIds: [key.id],
  });
  new cloudinfra.SecurityGroupAttachment(`web-${i}`, {
    securityGroupId: web.id,
    serverId: server.id,
  });
  servers.push(server);
}

new cloudinfra.Tag("web", {
  name: "web",
  color: "#16A34A",
  serverIds: servers.map((s) => s.id),
});

export const ips = servers.map((s) => s.ip);
export const keyFingerprint = key.fingerprint;
