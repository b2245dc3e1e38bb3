// @ts-check
// One user mistake per run (stack config `scenario`), in the flavour of stack config `flavour`.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const native = config.get("flavour") === "native";
/** @type {typeof import("pulumi-cloudinfra")} */
const cloudinfra = native ? require("pulumi-cloudinfra/native") : require("pulumi-cloudinfra");
const scenario = config.require("scenario");

if (scenario === "manifest") {
  // A bad source beside a tag and a role: nothing may be registered.
  new cloudinfra.Manifest("infra", { file: "bad-source.yaml" });
} else if (scenario === "misspelt-argument") {
  new cloudinfra.Server("web", {
    name: "web",
    planId: 2,
    image: "debian-12",
    // @ts-expect-error: the mistake under test
    firewallEnable: true,
  });
} else if (scenario === "misspelt-required") {
  // @ts-expect-error: the mistake under test
  new cloudinfra.Server("web", { name: "web", planID: 2, image: "debian-12" });
} else if (scenario === "one-dup-tag") {
  new cloudinfra.Tag("t1", { name: "dup", color: "#111111" });
} else if (scenario === "two-dup-tags") {
  const t1 = new cloudinfra.Tag("t1", { name: "dup", color: "#111111" });
  new cloudinfra.Tag("t2", { name: "dup", color: "#222222" }, { dependsOn: [t1] });
} else if (scenario === "adopt-server") {
  new cloudinfra.Server("adopted", {
    name: "kept",
    planId: 2,
    image: "debian-12",
    adoptId: config.require("adoptId"),
  });
} else if (scenario === "plan-name") {
  const plan = cloudinfra.getPlanOutput({ name: "VPS SS" });
  const web = new cloudinfra.Server("web", { name: "web", planId: plan.id, image: "debian-12" });
  new cloudinfra.Tag("web", { name: "web", color: "#111111", serverIds: [web.id] });
}
