/**
 * The plugin process itself, as the CLI meets it: `pulumi-resource-cloudinfra` prints its port,
 * answers GetPluginInfo and GetSchema, and checks its configuration with errors that name the
 * setting, before any resource is touched.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Empty, grpc, provproto, provrpc } from "../support/local-engine/proto.ts";
import { ProviderHost } from "../support/local-engine/provider-host.ts";
import { makeSecret, UNKNOWN } from "../support/local-engine/values.ts";
import { programEnv, ROOT } from "../support/programs";

const MAIN = join(ROOT, "dist", "native", "plugin", "main.js");
const URN = "urn:pulumi:dev::p::pulumi:providers:cloudinfra::default";
const TAG_URN = "urn:pulumi:dev::p::cloudinfra:index:Tag::t";
let host: ProviderHost;

beforeAll(async () => {
  host = await ProviderHost.start({
    config: {},
    cwd: ROOT,
    project: "p",
    env: programEnv(),
    plugin: { argv: [MAIN, "127.0.0.1:1"], name: "pulumi-resource-cloudinfra" },
  });
});
afterAll(async () => host?.close());

function unary<Res>(method: "getPluginInfo", req: unknown): Promise<Res> {
  return new Promise((ok, fail) => {
    const client = new provrpc.ResourceProviderClient(
      host.address,
      grpc.credentials.createInsecure(),
    );
    (client[method] as unknown as (r: unknown, cb: (e: Error | null, res: Res) => void) => void)(
      req,
      (err, res) => {
        client.close();
        if (err) fail(err);
        else ok(res);
      },
    );
  });
}

describe("pulumi-resource-cloudinfra", () => {
  it("prints its port first and reports the package's version (GetSchema: plugin-schema.test.ts)", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    const info = await unary<
      InstanceType<typeof import("@pulumi/pulumi/proto/plugin_pb.js").PluginInfo>
    >("getPluginInfo", new Empty());
    expect(info.getVersion()).toBe(version);
  });

  it("prints its port before it loads the provider's code (API client, zod, undici), then loads that code at once, never the SDK's runtime", async () => {
    // What the process has loaded when it writes its first line, and after it answered a call.
    const probe = join(ROOT, "test", "support", "loaded-modules.mjs");
    const child = spawn(process.execPath, ["--import", probe, MAIN, "127.0.0.1:1"], {
      cwd: ROOT,
      env: programEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const port = await new Promise<string>((ok, fail) => {
      child.stdout.once("data", (d: Buffer) => ok(d.toString().trim()));
      child.once("exit", (code) => fail(new Error(`plugin exited (${code}): ${stderr}`)));
    });
    const client = new provrpc.ResourceProviderClient(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
    );
    const checked = await new Promise<number>((ok, fail) => {
      const req = new provproto.CheckRequest();
      req.setUrn(URN);
      client.checkConfig(req, (err, res) => (err ? fail(err) : ok(res.getFailuresList().length)));
    });
    client.close();
    expect(checked).toBe(1); // no API key
    const exited = new Promise((ok) => child.once("exit", ok));
    child.kill("SIGTERM");
    await exited;
    const [atPort, atEnd] = [...stderr.matchAll(/^loaded (.*)$/gm)].map(
      (m) => JSON.parse(m[1] ?? "[]") as string[],
    );
    const heavy = (files: string[] | undefined) =>
      (files ?? []).filter((f) =>
        /dist\/api\/client\.js$|node_modules\/(zod|undici)\/|@pulumi\/pulumi\/index\.js$/.test(f),
      );
    expect(atPort?.some((f) => f.endsWith("native/plugin/server.js"))).toBe(true);
    expect(heavy(atPort)).toEqual([]);
    expect(heavy(atEnd).length).toBeGreaterThan(0);
    // Serving needs none of the SDK's runtime (its automation API alone takes ~0.5 s to load).
    expect((atEnd ?? []).filter((f) => f.endsWith("@pulumi/pulumi/index.js"))).toEqual([]);
  });

  it("CheckConfig names the setting at fault; unknowns pass; DiffConfig lists changes without replacing", async () => {
    const plain = await host.checkConfig(
      URN,
      {},
      {
        endpoint: "http://127.0.0.1:1",
        apiKey: makeSecret("k-123456789"),
      },
    );
    expect(plain.failures).toEqual([
      { property: "endpoint", reason: expect.stringMatching(/must use https:\/\//) },
    ]);
    const missing = await host.checkConfig(URN, {}, { endpoint: "https://127.0.0.1:1" });
    expect(missing.failures).toEqual([
      {
        property: "apiKey",
        reason: expect.stringMatching(/no API key is configured.*CLOUDINFRA_API_KEY/),
      },
    ]);
    expect(JSON.stringify(plain.failures)).not.toContain("k-123456789");
    const preview = await host.checkConfig(URN, {}, { endpoint: "https://h", apiKey: UNKNOWN });
    expect(preview.failures).toEqual([]);
    const diff = await host.diffConfig(
      URN,
      { endpoint: "https://a", apiKey: makeSecret("one-key-123") },
      { endpoint: "https://a", apiKey: makeSecret("other-key-456") },
    );
    expect(diff).toMatchObject({
      changes: "some",
      replaces: [],
      detailedDiff: { apiKey: { kind: "update", inputDiff: true } },
    });
  });

  it("with its key still unknown, a preview works and a create says why it cannot run", async () => {
    await host.configurePlugin({ endpoint: "https://127.0.0.1:1", apiKey: UNKNOWN });
    expect(host.acceptSecrets).toBe(true);
    expect(host.supportsPreview).toBe(true);
    const planned = await host.create(TAG_URN, { name: "t", color: "#111111" }, true);
    expect(planned.properties).toMatchObject({ name: "t", color: "#111111", tagId: UNKNOWN });
    await expect(host.create(TAG_URN, { name: "t", color: "#111111" })).rejects.toThrow(
      /cannot create: the provider's configuration is not known yet/,
    );
  });

  it("Check refuses a name with invisible characters with the resources' own words", async () => {
    await host.configurePlugin({
      endpoint: "https://127.0.0.1:1",
      apiKey: makeSecret("k-never-sent-0123456789"),
    });
    const checked = await host.check(TAG_URN, {}, { name: "\u202eevil\u200b", color: "#111111" });
    expect(checked.failures).toEqual([
      {
        property: "name",
        reason:
          "name: must not contain invisible or bidirectional control characters, which make different text look the same (found U+202E at character 1)",
      },
    ]);
  });
});
