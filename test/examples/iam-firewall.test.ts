/**
 * examples/iam-firewall runs as a Pulumi program under the SDK's mocks: it loads, its data
 * sources answer from an in-process emulator, and the resources it registers are wired to each
 * other as the example promises. No CLI is needed; the providers themselves are proven by
 * test/provider-host/ and test/programs/.
 */
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/provider-fixture";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  additionalSecretOutputs: string[];
}

const PROGRAM = join(ROOT, "examples", "iam-firewall", "index.js");
const registered = new Map<string, Registered>();
/** additionalSecretOutputs by resource name, as the program's registrations asked for them. */
const secretOutputs = new Map<string, string[]>();
let outputs: Record<string, unknown>;
let secretExports: string[];
let emulator: TestEmulator;
const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startTestEmulator();
  process.env["CLOUDINFRA_ENDPOINT"] = emulator.endpoint;
  process.env["CLOUDINFRA_API_KEY"] = emulator.apiKey;
  process.env["CLOUDINFRA_CA_CERT"] = emulator.caCertFile;

  // What the SDK sends the engine for each registration, options included.
  const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks") as {
    MockMonitor: { prototype: { registerResource: (req: never, cb: never) => unknown } };
  };
  const register = MockMonitor.prototype.registerResource;
  MockMonitor.prototype.registerResource = function (
    this: unknown,
    req: { getName(): string; getAdditionalsecretoutputsList(): string[] },
    callback: never,
  ) {
    secretOutputs.set(req.getName(), req.getAdditionalsecretoutputsList());
    return register.call(this, req as never, callback);
  } as never;

  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.set(args.name, {
          type: args.type,
          name: args.name,
          inputs: args.inputs as Record<string, unknown>,
          additionalSecretOutputs: secretOutputs.get(args.name) ?? [],
        });
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: () => ({}),
    },
    "cloudinfra-iam-firewall",
    "dev",
    false,
  );

  const program = require(PROGRAM) as Record<string, pulumi.Output<unknown>>;
  const names = Object.keys(program);
  // A failing data source or registration surfaces as an unhandled rejection, never as a
  // rejected Output: listen for it so the test fails at once with the program's error.
  let onRejection: ((reason: unknown) => void) | undefined;
  const values = await new Promise<unknown[]>((ok, fail) => {
    onRejection = fail;
    process.once("unhandledRejection", fail);
    pulumi.all(names.map((n) => program[n] as pulumi.Output<unknown>)).apply(ok);
  }).finally(() => {
    if (onRejection !== undefined) process.off("unhandledRejection", onRejection);
  });
  outputs = Object.fromEntries(names.map((n, i) => [n, values[i]]));
  const secret = await Promise.all(
    names.map(async (n) =>
      (await pulumi.isSecret(program[n] as pulumi.Output<unknown>)) ? n : "",
    ),
  );
  secretExports = secret.filter((n) => n !== "");
});

afterAll(async () => {
  for (const key of ["CLOUDINFRA_ENDPOINT", "CLOUDINFRA_API_KEY", "CLOUDINFRA_CA_CERT"]) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  await emulator?.close();
});

function resource(name: string): Registered {
  const found = registered.get(name);
  if (found === undefined) throw new Error(`the program registered no resource named ${name}`);
  return found;
}

describe("examples/iam-firewall", () => {
  it("registers its five resources as cloudinfra dynamic resources", () => {
    expect(
      [...registered.values()]
        .map((r) => [r.name, r.type])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ["app", "pulumi-nodejs:dynamic/cloudinfra:Server"],
      ["app-web", "pulumi-nodejs:dynamic/cloudinfra:SecurityGroupAttachment"],
      ["ci", "pulumi-nodejs:dynamic/cloudinfra:User"],
      ["deployers", "pulumi-nodejs:dynamic/cloudinfra:Role"],
      ["web", "pulumi-nodejs:dynamic/cloudinfra:SecurityGroup"],
    ]);
    for (const r of registered.values()) {
      expect(String(r.inputs["__provider"])).toContain('require("pulumi-cloudinfra/provider")');
    }
  });

  it("gives the CI user the role it creates, and asks the engine to keep its key secret", () => {
    expect(resource("deployers").inputs).toMatchObject({
      name: "deployers",
      permissions: ["servers:read", "firewall:read", "firewall:write"],
    });
    expect(resource("ci").inputs).toMatchObject({
      name: "ci",
      type: "api",
      roleId: "deployers-id",
    });
    expect(resource("ci").additionalSecretOutputs).toEqual(["apiKey"]);
    expect(secretExports).toEqual(["ciApiKey"]);
  });

  it("lets SSH in from the admin network and HTTPS from anywhere, in that order", () => {
    expect(resource("web").inputs["rules"]).toEqual([
      { action: "ACCEPT", proto: "tcp", dport: "22", source: "203.0.113.0/24" },
      { action: "ACCEPT", proto: "tcp", dport: "443" },
    ]);
  });

  it("attaches the group to the server, whose plan and image come from the catalogue", async () => {
    expect(resource("app-web").inputs).toMatchObject({
      securityGroupId: "web-id",
      serverId: "app-id",
    });
    const plans = (await emulator.call("GET", "/v1/plans")).body as { id: number }[];
    const app = resource("app").inputs;
    expect(plans.map((p) => p.id)).toContain(app["planId"]);
    expect(String(app["image"])).toMatch(/^ubuntu-/);
    expect(app["firewallEnabled"]).toBe(true);
    expect(outputs["attachmentId"]).toBe("app-web-id");
  });
});
