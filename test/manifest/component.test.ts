/**
 * The resource graph a Manifest registers, under Pulumi's mocks: which resources, named by their
 * manifest names, parented to the component, wired to each other by id, with the plan and image
 * the catalogue chose, aliases and protection as the entries ask, secrets kept secret, and inputs
 * that the resources' own `check` accepts. The catalogue is an in-process emulator.
 *
 * That a manifest with mistakes registers nothing is proven in a separate process
 * (component-failure.test.ts): its failure is an unhandled rejection, as in a real program.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { Manifest } from "../../src/manifest";
import { startEmulatorForFunctions, stopAll } from "../functions/helpers";
import type { TestEmulator } from "../support/emulator";
import { ROOT } from "../support/programs";

interface Registration {
  type: string;
  name: string;
  parent: string;
  inputs: Record<string, unknown>;
  aliases: { name: string; noParent: boolean }[];
  protect: boolean;
  additionalSecretOutputs: string[];
}

const registered = new Map<string, Registration>();
let emulator: TestEmulator;
const dir = mkdtempSync(join(tmpdir(), "manifest-component-"));
let nextId = 100;

/** What the service would add to each kind of resource. */
function outputsFor(type: string, name: string, inputs: Record<string, unknown>) {
  if (type.endsWith(":Server")) return { ip: `10.0.0.${nextId % 250}`, status: "running" };
  if (type.endsWith(":SshKey")) {
    const generated = inputs["generate"] === true ? { privateKey: `private-${name}` } : {};
    return { fingerprint: `SHA256:fp-${name}`, ...generated };
  }
  if (type.endsWith(":User") && inputs["type"] === "api") return { apiKey: `key-of-${name}` };
  return {};
}

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
  const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks") as {
    MockMonitor: { prototype: { registerResource: (req: never, cb: never) => unknown } };
  };
  const register = MockMonitor.prototype.registerResource;
  const options = new Map<string, Omit<Registration, "type" | "name" | "inputs">>();
  MockMonitor.prototype.registerResource = function (
    this: unknown,
    req: RegisterRequest,
    cb: never,
  ) {
    options.set(req.getName(), {
      parent: req.getParent(),
      aliases: req.getAliasesList().map((a) => ({
        name: a.getSpec()?.getName() ?? "",
        noParent: a.getSpec()?.getNoparent() ?? false,
      })),
      protect: req.getProtect(),
      additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    });
    return register.call(this, req as never, cb);
  } as never;
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        const extra = options.get(args.name);
        if (extra === undefined) throw new Error(`no options seen for ${args.name}`);
        registered.set(`${args.type}::${args.name}`, {
          type: args.type,
          name: args.name,
          inputs: args.inputs as Record<string, unknown>,
          ...extra,
        });
        const id = args.custom ? String(nextId++) : "";
        const inputs = args.inputs as Record<string, unknown>;
        return { id, state: { ...inputs, ...outputsFor(args.type, args.name, inputs) } };
      },
      call: () => ({}),
    },
    "gitops",
    "dev",
    false,
  );
});

afterAll(async () => {
  await stopAll(emulator);
  rmSync(dir, { recursive: true, force: true });
});

interface RegisterRequest {
  getName(): string;
  getParent(): string;
  getProtect(): boolean;
  getAdditionalsecretoutputsList(): string[];
  getAliasesList(): { getSpec(): { getName(): string; getNoparent(): boolean } | undefined }[];
}

function settled<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

/** Every id, URN and output of the manifest, resolved. */
async function deployed(manifest: Manifest) {
  const resources = await manifest.resources;
  const all: pulumi.CustomResource[] = Object.values(resources).flatMap((section) =>
    Object.values(section as Record<string, pulumi.CustomResource>),
  );
  await settled(pulumi.all(all.map((r) => r.id)));
  const [urn, serverIps, keyFingerprints, userApiKeys, privateKeys] = await settled(
    pulumi.all([
      manifest.urn,
      manifest.serverIps,
      manifest.keyFingerprints,
      manifest.userApiKeys,
      manifest.privateKeys,
    ]),
  );
  return { urn, serverIps, keyFingerprints, userApiKeys, privateKeys, resources };
}

function find(kind: string, name: string): Registration {
  const found = registered.get(`pulumi-nodejs:dynamic/cloudinfra:${kind}::${name}`);
  if (found === undefined) throw new Error(`no ${kind} named ${name} was registered`);
  return found;
}

async function planId(name: string): Promise<number> {
  const plans = (await emulator.call("GET", "/v1/plans")).body as { id: number; name: string }[];
  return plans.find((p) => p.name === name)?.id ?? -1;
}

describe("the gitops example's manifest", () => {
  let manifest: Manifest;
  let outputs: Awaited<ReturnType<typeof deployed>>;

  beforeAll(async () => {
    manifest = new Manifest("infra", { file: join(ROOT, "examples", "gitops", "infra.yaml") });
    outputs = await deployed(manifest);
  });

  it("registers one resource per entry, named by its key, under the component", () => {
    const children = [...registered.values()].filter((r) => r.parent === outputs.urn);
    expect(children.map((r) => `${r.type.split(":").pop()} ${r.name}`).sort()).toEqual([
      "Role deployers",
      "SecurityGroup web",
      "Server web-1",
      "Server web-2",
      "SshKey deployer",
      "Tag web",
      "User ci",
    ]);
    // The component's own input is the file it read.
    expect(registered.get("cloudinfra:index:Manifest::infra")?.inputs).toEqual({
      file: join(ROOT, "examples", "gitops", "infra.yaml"),
    });
    for (const child of children) {
      expect(String(child.inputs["__provider"])).toContain('require("pulumi-cloudinfra/provider")');
    }
  });

  it("gives each server the plan and image the catalogue chose, and the ids of its key and group", async () => {
    const key = outputs.resources.sshKeys["deployer"];
    const group = outputs.resources.securityGroups["web"];
    const keyId = await settled(key?.id ?? pulumi.output(""));
    const groupId = await settled(group?.id ?? pulumi.output(""));
    expect(find("Server", "web-1").inputs).toEqual({
      __provider: expect.any(String),
      // The logical name, for autonaming (src/resources/autoname.ts); `check` drops it.
      __logicalName: "web-1",
      name: "web-1",
      planId: await planId("VPS S"),
      image: "ubuntu-24.04",
      sshKeyIds: [keyId],
      securityGroupIds: [groupId],
      firewallEnabled: true,
    });
  });

  it("tags both servers, gives the user its role, and keeps the rules in order", async () => {
    const ids = await Promise.all(
      ["web-1", "web-2"].map((n) => settled(outputs.resources.servers[n]?.id ?? pulumi.output(""))),
    );
    expect(find("Tag", "web").inputs).toMatchObject({
      name: "web",
      // The Tag's own colour rule reads the manifest's value: its spelling, lower case.
      color: "#0ea5e9",
      serverIds: ids,
    });
    const roleId = await settled(outputs.resources.roles["deployers"]?.id ?? pulumi.output(""));
    expect(find("User", "ci").inputs).toMatchObject({ name: "ci", type: "api", roleId });
    expect(find("Role", "deployers").inputs).toMatchObject({
      permissions: ["servers:read", "firewall:read", "firewall:write"],
    });
    expect(find("SecurityGroup", "web").inputs["rules"]).toEqual([
      { action: "ACCEPT", proto: "tcp", dport: 22, source: "203.0.113.0/24" },
      { action: "ACCEPT", proto: "tcp", dport: 80 },
      { action: "ACCEPT", proto: "tcp", dport: 443 },
    ]);
  });

  it("passes each entry's fields on as its resource's arguments, and nothing else", async () => {
    const id = (r: pulumi.CustomResource | undefined) => settled(r?.id ?? pulumi.output(""));
    const { resources } = outputs;
    const [keyId, groupId, roleId, web1, web2] = await Promise.all([
      id(resources.sshKeys["deployer"]),
      id(resources.securityGroups["web"]),
      id(resources.roles["deployers"]),
      id(resources.servers["web-1"]),
      id(resources.servers["web-2"]),
    ]);
    const inputs = (kind: string, name: string) => {
      const { __provider, ...rest } = find(kind, name).inputs;
      return rest;
    };
    expect(inputs("SshKey", "deployer")).toEqual({
      __logicalName: "deployer",
      name: "deployer",
      generate: true,
    });
    expect(inputs("SecurityGroup", "web")).toEqual({
      __logicalName: "web",
      name: "web",
      description: "SSH from the office, HTTP and HTTPS from anywhere",
      rules: [
        { action: "ACCEPT", proto: "tcp", dport: 22, source: "203.0.113.0/24" },
        { action: "ACCEPT", proto: "tcp", dport: 80 },
        { action: "ACCEPT", proto: "tcp", dport: 443 },
      ],
    });
    expect(inputs("Role", "deployers")).toEqual({
      __logicalName: "deployers",
      name: "deployers",
      description: "CI reads servers and manages their firewall",
      permissions: ["servers:read", "firewall:read", "firewall:write"],
    });
    expect(inputs("User", "ci")).toEqual({ __logicalName: "ci", name: "ci", type: "api", roleId });
    expect(inputs("Server", "web-2")).toEqual({
      __logicalName: "web-2",
      name: "web-2",
      planId: await planId("VPS S"),
      image: "ubuntu-24.04",
      sshKeyIds: [keyId],
      securityGroupIds: [groupId],
      firewallEnabled: true,
    });
    expect(inputs("Tag", "web")).toEqual({
      __logicalName: "web",
      name: "web",
      color: "#0ea5e9",
      serverIds: [web1, web2],
    });
  });

  it("outputs IPs and fingerprints by manifest name, and API and private keys as secrets", async () => {
    expect(Object.keys(outputs.serverIps).sort()).toEqual(["web-1", "web-2"]);
    expect(outputs.serverIps["web-1"]).toMatch(/^10\.0\.0\.\d+$/);
    expect(outputs.keyFingerprints).toEqual({ deployer: "SHA256:fp-deployer" });
    expect(outputs.userApiKeys).toEqual({ ci: "key-of-ci" });
    expect(outputs.privateKeys).toEqual({ deployer: "private-deployer" });
    expect(await pulumi.isSecret(manifest.userApiKeys)).toBe(true);
    expect(await pulumi.isSecret(manifest.privateKeys)).toBe(true);
    expect(await pulumi.isSecret(manifest.serverIps)).toBe(false);
    expect(find("User", "ci").additionalSecretOutputs).toEqual(["apiKey"]);
    expect(find("SshKey", "deployer").additionalSecretOutputs).toEqual(["privateKey"]);
  });

  it("registers inputs that each resource's own check accepts", async () => {
    // The stable entry point of the built package, as the provider host loads it.
    const provider = require(
      join(ROOT, "dist", "provider.js"),
    ) as typeof import("../../src/provider");
    for (const r of registered.values()) {
      if (r.parent !== outputs.urn) continue;
      const kind = r.type.split(":").pop() ?? "";
      const checked = (await provider.run(kind, "check", [{}, r.inputs])) as {
        failures?: { property: string; reason: string }[];
      };
      expect({ resource: r.name, failures: checked.failures ?? [] }).toEqual({
        resource: r.name,
        failures: [],
      });
    }
  });
});

describe("entry options", () => {
  it("turn aliases, protect, adoptId, timeouts, key files and DID users into what Pulumi expects", async () => {
    const folder = join(dir, "options");
    mkdirSync(join(folder, "keys"), { recursive: true });
    const laptop = generateEd25519KeyPair("me@laptop").publicKey;
    writeFileSync(join(folder, "keys", "laptop.pub"), `${laptop}\n`);
    writeFileSync(
      join(folder, "infra.yaml"),
      [
        "sshKeys:",
        "  laptop: {publicKeyFile: keys/laptop.pub, name: my laptop}",
        "roles:",
        "  auditors: {permissions: [servers:read], adoptId: 4}",
        "users:",
        "  alice: {type: did, role: auditors, did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'}",
        "servers:",
        "  db-1:",
        "    plan: {name: Dedicated Storage}",
        "    image: debian-13",
        "    powerState: stopped",
        "    timeouts: {create: 30m}",
        "    protect: true",
        "    aliases: [db, {name: database, noParent: true}]",
        "tags:",
        "  prod: {color: '#ff0000'}",
      ].join("\n"),
    );
    const manifest = new Manifest("options", { file: join(folder, "infra.yaml") });
    const outputs = await deployed(manifest);

    const db = find("Server", "db-1");
    expect(db.protect).toBe(true);
    expect(db.aliases).toEqual([
      { name: "db", noParent: false },
      { name: "database", noParent: true },
    ]);
    expect(db.inputs).toMatchObject({
      planId: await planId("Dedicated Storage"),
      image: "debian-13",
      powerState: "stopped",
      timeouts: { create: "30m" },
    });
    expect(find("SshKey", "laptop").inputs).toMatchObject({ name: "my laptop", publicKey: laptop });
    expect(find("SshKey", "laptop").inputs).not.toHaveProperty("generate");
    expect(find("Role", "auditors").inputs).toMatchObject({ adoptId: 4 });
    expect(find("User", "alice").inputs).toMatchObject({
      type: "did",
      did: expect.stringMatching(/^did:key:/),
    });
    // A tag without `servers` leaves membership alone.
    expect(find("Tag", "prod").inputs).not.toHaveProperty("serverIds");
    // DID users have no API key, imported keys no private key.
    expect(outputs.userApiKeys).toEqual({});
    expect(outputs.privateKeys).toEqual({});
    // Each resource's arguments, exactly: the entry's own fields and nothing else.
    const inputs = (kind: string, name: string) => {
      const { __provider, __logicalName, ...rest } = find(kind, name).inputs;
      return rest;
    };
    const roleId = await settled(outputs.resources.roles["auditors"]?.id ?? pulumi.output(""));
    expect(inputs("SshKey", "laptop")).toEqual({ name: "my laptop", publicKey: laptop });
    expect(inputs("Role", "auditors")).toEqual({
      name: "auditors",
      permissions: ["servers:read"],
      adoptId: 4,
    });
    expect(inputs("User", "alice")).toEqual({
      name: "alice",
      type: "did",
      roleId,
      did: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
    });
    expect(inputs("Server", "db-1")).toEqual({
      name: "db-1",
      planId: await planId("Dedicated Storage"),
      image: "debian-13",
      powerState: "stopped",
      timeouts: { create: "30m" },
    });
    expect(inputs("Tag", "prod")).toEqual({ name: "prod", color: "#ff0000" });
  });
});
