/**
 * A manifest with mistakes registers nothing, not even the component, and fails the program with
 * one ManifestError that lists every mistake. It runs as a program does: in its own Node process
 * (the failure surfaces as unhandled rejections, which Pulumi's program runner reports once per
 * error object), with the built package and Pulumi's mocks, against an in-process emulator.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/programs";
import { useCatalogueEmulator } from "./catalogue-fixture";

const fx = useCatalogueEmulator("failure");
const { dir } = fx;

const PROGRAM = `
const { createRequire } = require("node:module");
const entry = ${JSON.stringify(join(ROOT, "dist", "index.js"))};
const cloudinfra = require(entry);
const pulumi = createRequire(entry)("@pulumi/pulumi");
const registered = [];
pulumi.runtime.setMocks(
  {
    newResource(args) {
      registered.push(args.type + "::" + args.name);
      return { id: args.custom ? "1" : "", state: args.inputs };
    },
    call: () => ({}),
  },
  "gitops",
  "dev",
  false,
);
const rejections = [];
process.on("unhandledRejection", (err) => rejections.push(err));
const infra = new cloudinfra.Manifest("infra", { file: "infra.yaml" });
// What a program typically does with it: the export fails with the same error.
infra.serverIps.apply(() => undefined);
process.once("beforeExit", () => {
  const distinct = [...new Set(rejections)];
  process.stdout.write(JSON.stringify({
    registered,
    distinctErrors: distinct.length,
    name: distinct[0] && distinct[0].name,
    isRunError: pulumi.RunError.isInstance(distinct[0]),
    message: distinct[0] && distinct[0].message,
    issues: distinct[0] && distinct[0].issues && distinct[0].issues.length,
  }));
});
`;

/** Runs the program on `manifest`; asynchronously, so that this process's emulator can answer. */
async function runProgram(manifest: string[]) {
  writeFileSync(join(dir, "infra.yaml"), `${manifest.join("\n")}\n`);
  writeFileSync(join(dir, "program.cjs"), PROGRAM);
  const { stdout } = await promisify(execFile)(process.execPath, ["program.cjs"], {
    cwd: dir,
    encoding: "utf8",
  });
  return JSON.parse(stdout) as {
    registered: string[];
    distinctErrors: number;
    name: string;
    isRunError: boolean;
    message: string;
    issues: number;
  };
}

describe("a manifest with mistakes", () => {
  it("registers nothing and fails with one error listing every mistake, each located", async () => {
    const result = await runProgram([
      "sshKeys:",
      "  deployer: {generate: true}",
      "roles:",
      "  deployers: {permissions: [servers:read, firewall:wrte]}",
      "servers:",
      "  web-1:",
      "    plan: VPS SS",
      "    image: ubuntu-24.04",
      "    sshKeys: [deployer]",
      "    powerState: runing",
      "tags:",
      "  web: {color: '#0EA5E9', servers: [web-1, web-2]}",
    ]);
    expect(result.registered).toEqual([]);
    expect(result).toMatchObject({
      distinctErrors: 1,
      name: "ManifestError",
      isRunError: true,
      issues: 4,
    });
    expect(result.message).toBe(
      [
        "infra.yaml: 4 problems; nothing was registered",
        '  infra.yaml:4:43: roles.deployers.permissions[1]: unknown permission "firewall:wrte"; did you mean "firewall:write" or "firewall:read"?',
        '  infra.yaml:7:11: servers.web-1.plan: no plan is named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?',
        '  infra.yaml:10:17: servers.web-1.powerState: expected "running" or "stopped" (got "runing"); did you mean "running"?',
        '  infra.yaml:12:44: tags.web.servers[1]: no entry "web-2" in servers; did you mean "web-1"?',
      ].join("\n"),
    );
  });

  it("refuses tags Web and web at load, registering nothing", async () => {
    const result = await runProgram([
      "tags:",
      "  Web: {color: '#000000'}",
      "  web: {color: '#ffffff'}",
    ]);
    expect(result.registered).toEqual([]);
    expect(result.message).toBe(
      [
        "infra.yaml: 1 problem; nothing was registered",
        '  infra.yaml:3:8: tags.web: the name "web" is already used by tags.Web; tags need distinct names at the service (set name: to tell them apart)',
      ].join("\n"),
    );
  });

  it("a mistake the catalogue alone finds is enough to register nothing", async () => {
    const result = await runProgram([
      "sshKeys:",
      "  deployer: {generate: true}",
      "servers:",
      "  web-1: {plan: VPS S, image: ubuntu-99.04, sshKeys: [deployer]}",
    ]);
    expect(result.registered).toEqual([]);
    expect(result.message).toBe(
      [
        "infra.yaml: 1 problem; nothing was registered",
        '  infra.yaml:4:31: servers.web-1.image: no image is named "ubuntu-99.04"; did you mean "ubuntu-22.04" or "ubuntu-24.04"?',
      ].join("\n"),
    );
  });

  it("a valid manifest registers the component, then its resources", async () => {
    const result = await runProgram([
      "sshKeys:",
      "  deployer: {generate: true}",
      "servers:",
      "  web-1: {plan: VPS S, image: ubuntu-24.04, sshKeys: [deployer]}",
    ]);
    expect(result.distinctErrors).toBe(0);
    expect(result.registered).toEqual([
      "cloudinfra:index:Manifest::infra",
      "pulumi-nodejs:dynamic/cloudinfra:SshKey::deployer",
      "pulumi-nodejs:dynamic/cloudinfra:Server::web-1",
    ]);
  });
});
