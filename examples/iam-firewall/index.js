// @ts-check
// IAM and firewall: a least-privilege role for CI and an API user holding it, a security group
// that lets SSH in from one network and HTTPS from anywhere, and a server it is attached to.
// Settings come from `cloudinfra:*` stack config or the CLOUDINFRA_* variables that
// `npm run emulator` prints, so by default this runs against the local emulator.

const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const config = new pulumi.Config();
/** Where SSH may come from; set it with `pulumi config set adminCidr 198.51.100.0/24`. */
const adminCidr = config.get("adminCidr") ?? "203.0.113.0/24";

const deployers = new cloudinfra.Role("deployers", {
  name: "deployers",
  description: "CI: reads servers and manages their firewall",
  // Names, in any order; a typo fails the preview with the closest valid names.
  permissions: ["servers:read", "firewall:read", "firewall:write"],
});

const ci = new cloudinfra.User("ci", { name: "ci", type: "api", roleId: deployers.id });

const web = new cloudinfra.SecurityGroup("web", {
  name: "web",
  description: "SSH from the admin network, HTTPS from anywhere",
  // Rules are kept in this order.
  rules: [
    { action: "ACCEPT", proto: "tcp", dport: "22", source: adminCidr },
    { action: "ACCEPT", proto: "tcp", dport: "443" },
  ],
});

const plan = cloudinfra.getPlanOutput({ name: "VPS XS" });
const image = cloudinfra.getImageOutput({ nameRegex: "^ubuntu-", mostRecent: true });

const app = new cloudinfra.Server("app", {
  name: "app-1",
  planId: plan.id,
  image: image.name,
  firewallEnabled: true,
});

const attachment = new cloudinfra.SecurityGroupAttachment("app-web", {
  securityGroupId: web.id,
  serverId: app.id,
});

exports.roleId = deployers.roleId;
exports.securityGroupId = web.securityGroupId;
exports.attachmentId = attachment.id;
exports.serverIp = app.ip;
/** Secret in state and in `pulumi stack output` (use --show-secrets to read it). */
exports.ciApiKey = pulumi.secret(ci.apiKey);
