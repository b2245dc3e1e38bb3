/**
 * The TypeScript flavour of the native provider (`pulumi-cloudinfra/native`), through the real
 * SDK under `pulumi.runtime.setMocks`: what each class and function sends the engine (tokens,
 * outputs, secret outputs, the provider reference). The plugin answering them is tested through
 * the local engine elsewhere.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import { beforeAll, describe, expect, it } from "vitest";
import * as native from "../../src/native";
import { PACKAGE_SCHEMA_FILE, resourceToken } from "../../src/native/package";
import { RESOURCE_KINDS, type ResourceKind } from "../../src/resources/kinds";
import { ROOT } from "../support/programs";

/** What the engine was sent for one registration. */
interface Sent {
  type: string;
  name: string;
  provider: string;
  id: string | undefined;
  /** The properties as sent, secrets still wrapped in Pulumi's secret signature. */
  wire: Record<string, unknown>;
  secretOutputs: string[];
}

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const sent: Sent[] = [];
const invoked: { token: string; inputs: Record<string, unknown>; provider: string | undefined }[] =
  [];

interface RegisterRequest {
  getType(): string;
  getName(): string;
  getProvider(): string;
  getObject(): { toJavaScript(): Record<string, unknown> } | undefined;
  getAdditionalsecretoutputsList(): string[];
}
interface ReadRequest {
  getType(): string;
  getName(): string;
  getProvider(): string;
  getId(): string;
  getProperties(): { toJavaScript(): Record<string, unknown> } | undefined;
}

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      // A read (`X.get`) keeps its id; a new resource gets `<name>-id`.
      newResource: (args) => ({
        id: args.id !== undefined && args.id !== "" ? args.id : `${args.name}-id`,
        state: args.inputs,
      }),
      call: (args) => {
        invoked.push({ token: args.token, inputs: args.inputs, provider: args.provider });
        return { id: 1, name: "VPS S", price: 4.99 };
      },
    },
    "native",
    "test",
    false,
  );
  const proto = MockMonitor.prototype as unknown as {
    registerResource(req: RegisterRequest, cb: unknown): unknown;
    readResource(req: ReadRequest, cb: unknown): unknown;
  };
  const register = proto.registerResource;
  proto.registerResource = function (req, cb) {
    sent.push({
      type: req.getType(),
      name: req.getName(),
      provider: req.getProvider(),
      id: undefined,
      wire: req.getObject()?.toJavaScript() ?? {},
      secretOutputs: req.getAdditionalsecretoutputsList(),
    });
    return register.call(this, req, cb);
  };
  const read = proto.readResource;
  proto.readResource = function (req, cb) {
    sent.push({
      type: req.getType(),
      name: req.getName(),
      provider: req.getProvider(),
      id: req.getId(),
      wire: req.getProperties()?.toJavaScript() ?? {},
      secretOutputs: [],
    });
    return read.call(this, req, cb);
  };
});

/** The value of an Output, as `apply` would see it. */
function value<T>(output: pulumi.Output<T>): Promise<T> {
  return (output as unknown as { promise(): Promise<T> }).promise();
}

async function registered(resource: pulumi.Resource): Promise<Sent> {
  const urn = await value(resource.urn);
  const name = urn.split("::").pop();
  const found = sent.find((s) => s.name === name);
  if (found === undefined) throw new Error(`${urn} was not registered`);
  return found;
}

const schema = JSON.parse(readFileSync(join(ROOT, PACKAGE_SCHEMA_FILE), "utf8")) as {
  resources: Record<string, { properties: Record<string, unknown> }>;
};

describe("pulumi-cloudinfra/native", () => {
  it("is exported from the package as pulumi-cloudinfra/native", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, { default: string }>;
    };
    expect(pkg.exports["./native"]?.default).toBe("./dist/native/index.js");
  });

  it("registers each kind with the schema's token, every schema output as an Output of the instance", async () => {
    const p = native as unknown as Record<
      ResourceKind,
      new (
        n: string,
        a: object,
      ) => pulumi.CustomResource & Record<string, unknown>
    >;
    for (const kind of RESOURCE_KINDS) {
      const resource = new p[kind](`every-${kind}`, { name: `n-${kind}` });
      const wire = await registered(resource);
      expect(wire.type).toBe(resourceToken(kind));
      expect(wire.type).toBe(`cloudinfra:index:${kind}`);
      const outputs = Object.keys(schema.resources[resourceToken(kind)]?.properties ?? {});
      expect(outputs.length).toBeGreaterThan(0);
      for (const name of outputs) {
        expect(pulumi.Output.isInstance(resource[name]), `${kind}.${name}`).toBe(true);
      }
      expect(wire.wire["__provider"]).toBeUndefined();
    }
  });

  it("sends the arguments as given, and the outputs the plugin answers come back on the instance", async () => {
    const server = new native.Server("web", { name: "web-1", planId: 1, image: "ubuntu-24.04" });
    const wire = await registered(server);
    expect(wire.wire).toMatchObject({ name: "web-1", planId: 1, image: "ubuntu-24.04" });
    expect(await value(server.name)).toBe("web-1");
    expect(await value(server.id)).toBe("web-id");
  });

  it("asks the engine to keep a user's API key and a generated private key secret, and nothing else", async () => {
    const user = new native.User("ci", { name: "ci", type: "api", roleId: 3 });
    const key = new native.SshKey("deploy", { name: "deploy", generate: true });
    const tag = new native.Tag("t", { name: "t", color: "#00ff00" });
    expect((await registered(user)).secretOutputs).toEqual(["apiKey"]);
    expect((await registered(key)).secretOutputs).toEqual(["privateKey"]);
    expect((await registered(tag)).secretOutputs).toEqual([]);
  });

  it("registers a Provider as pulumi:providers:cloudinfra with its API key as a secret, and resources and functions name it", async () => {
    const b = new native.Provider("account-b", {
      endpoint: "https://127.0.0.1:9443",
      apiKey: "plain-text-key",
    });
    const wire = await registered(b);
    expect(wire.type).toBe("pulumi:providers:cloudinfra");
    expect(wire.wire["endpoint"]).toBe("https://127.0.0.1:9443");
    expect(wire.wire["apiKey"]).toEqual({
      [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270",
      value: "plain-text-key",
    });

    const tag = new native.Tag("in-b", { name: "b", color: "#0000ff" }, { provider: b });
    const reference = `${await value(b.urn)}::${await value(b.id)}`;
    expect((await registered(tag)).provider).toBe(reference);

    const plan = await native.getPlan({ name: "VPS S" }, { provider: b });
    expect(plan).toMatchObject({ id: 1, name: "VPS S" });
    expect(invoked.at(-1)).toEqual({
      token: "cloudinfra:index:getPlan",
      inputs: { name: "VPS S" },
      provider: reference,
    });
  });

  it("invokes every data source by its schema token, with Output arguments in the Output variant", async () => {
    await native.getPlans(undefined);
    await native.getCountries(undefined);
    await native.getPermissions(undefined);
    await native.getAccount(undefined);
    await native.getImages({ nameRegex: "^ubuntu" });
    await native.getImage({ name: "ubuntu-24.04" });
    await native.getCountry({ code: "DE" });
    await native.getServer({ id: 12 });
    const fromOutput = await value(native.getPlanOutput({ name: pulumi.output("VPS S") }));
    expect(fromOutput).toMatchObject({ name: "VPS S" });
    expect(invoked.slice(-9).map((i) => i.token)).toEqual([
      "cloudinfra:index:getPlans",
      "cloudinfra:index:getCountries",
      "cloudinfra:index:getPermissions",
      "cloudinfra:index:getAccount",
      "cloudinfra:index:getImages",
      "cloudinfra:index:getImage",
      "cloudinfra:index:getCountry",
      "cloudinfra:index:getServer",
      "cloudinfra:index:getPlan",
    ]);
    expect(invoked.at(-1)?.inputs).toEqual({ name: "VPS S" });
  });

  it("Server.get reads an existing server by id with the schema's token, without managing it", async () => {
    const live = native.Server.get("existing", "12");
    expect(await value(live.id)).toBe("12");
    const read = sent.find((s) => s.name === "existing");
    expect(read).toMatchObject({ type: "cloudinfra:index:Server", id: "12" });
    expect(live).toBeInstanceOf(native.Server);
  });
});
