// Each mistake is chosen by stack config `mistake`: tag-colour, plan-name or plan-id.
const pulumi = require("@pulumi/pulumi");
const cloudinfra = require("pulumi-cloudinfra");

const mistake = new pulumi.Config().require("mistake");
if (mistake === "tag-colour") {
  new cloudinfra.Tag("web", { name: "web", color: "blue" });
} else if (mistake === "plan-name") {
  exports.planId = cloudinfra.getPlanOutput({ name: "VPS SS" }).id;
} else if (mistake === "plan-id") {
  new cloudinfra.Server("web", { name: "web-1", planId: 99, image: "debian-12" });
}
