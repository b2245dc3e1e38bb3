/**
 * The plugin speaking to the engine as pulumi/pulumi's Go engine expects (provider_plugin.go):
 * Handshake answers the same capabilities as Configure and gives the engine's address; warnings
 * and `CLOUDINFRA_LOG=debug` lines reach the engine's `Log` with the resource's URN; with no engine
 * they go to stderr and the operation still succeeds; Attach (PULUMI_DEBUG_PROVIDERS) connects a
 * plugin started by hand.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { existingServerIn, startTestEmulator, type TestEmulator } from "../support/emulator";
import {
  Empty,
  type engineproto,
  enginerpc,
  grpc,
  provproto,
  require,
} from "../support/local-engine/proto.ts";
import { HostError, ProviderHost, struct } from "../support/local-engine/provider-host.ts";
import { makeSecret } from "../support/local-engine/values.ts";
import { unary } from "../support/native-plugin";
import { programEnv, ROOT } from "../support/programs";

const MAIN = join(ROOT, "dist", "native", "plugin", "main.js");
const TAG_URN = "urn:pulumi:dev::p::cloudinfra:index:Tag::adopted";
const SERVER_URN = "urn:pulumi:dev::p::cloudinfra:index:Server::web";

interface Logged {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  urn: string;
}
const SEVERITIES = ["debug", "info", "warning", "error"] as const;

/** A fake engine: the `Engine` service, recording every Log call. */
class FakeEngine {
  readonly logs: Logged[] = [];
  private readonly server = new grpc.Server();
  private waiters: { match: (l: Logged) => boolean; ok: (l: Logged) => void }[] = [];
  address = "";

  async start(): Promise<void> {
    this.server.addService(enginerpc.EngineService, {
      log: (
        call: { request: InstanceType<typeof engineproto.LogRequest> },
        cb: (err: null, res: InstanceType<typeof Empty>) => void,
      ) => {
        const entry: Logged = {
          severity: SEVERITIES[call.request.getSeverity()] ?? "error",
          message: call.request.getMessage(),
          urn: call.request.getUrn(),
        };
        this.logs.push(entry);
        for (const w of this.waiters.filter((w) => w.match(entry))) w.ok(entry);
        this.waiters = this.waiters.filter((w) => !w.match(entry));
        cb(null, new Empty());
      },
    });
    const port = await new Promise<number>((ok, fail) =>
      this.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? fail(err) : ok(p),
      ),
    );
    this.address = `127.0.0.1:${port}`;
  }

  /** The first Log call that matches, already made or still to come. */
  next(match: (l: Logged) => boolean): Promise<Logged> {
    const seen = this.logs.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((ok) => this.waiters.push({ match, ok }));
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.tryShutdown(() => ok()));
  }
}

let emulator: TestEmulator;
let client: CloudInfraClient;
let engine: FakeEngine;
const hosts: ProviderHost[] = [];

beforeAll(async () => {
  // Servers stay `provisioning` until the test advances them: a create waits until cancelled.
  emulator = await startTestEmulator({ lifecycle: { mode: "manual" } });
  client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  engine = new FakeEngine();
  await engine.start();
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await client?.close();
  await engine?.close();
  await emulator?.close();
});

async function plugin(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ProviderHost> {
  const host = await ProviderHost.start({
    config: {},
    cwd: ROOT,
    project: "p",
    env: programEnv(env),
    plugin: { argv: [MAIN, ...argv], name: "pulumi-resource-cloudinfra" },
  });
  hosts.push(host);
  return host;
}

/** Handshake as provider_plugin.go sends it for a plugin the CLI started. */
function handshake(
  host: ProviderHost,
  engineAddress: string,
): Promise<InstanceType<typeof provproto.ProviderHandshakeResponse>> {
  const req = new provproto.ProviderHandshakeRequest();
  req.setEngineAddress(engineAddress);
  req.setRootDirectory(join(ROOT, "dist", "native"));
  req.setProgramDirectory(join(ROOT, "dist", "native"));
  req.setConfigureWithUrn(true);
  req.setSupportsViews(true);
  req.setSupportsRefreshBeforeUpdate(true);
  req.setInvokeWithPreview(true);
  req.setAcceptsByteString(true);
  return unary(host, "handshake", req);
}

function configure(host: ProviderHost): Promise<void> {
  return host.configurePlugin({
    endpoint: emulator.endpoint,
    apiKey: makeSecret(emulator.apiKey),
    caCert: emulator.caCert,
  });
}

/** Adopts an existing tag: the provider warns that it took the object over. */
async function adoptTag(host: ProviderHost, name: string): Promise<number> {
  const tag = await client.tags.create({ name, color: "#123456" });
  const made = await host.create(TAG_URN, { name, color: "#123456", adoptId: tag.id });
  expect(made.id).toBe(String(tag.id));
  return tag.id;
}

const adoptedWarning = (id: number) =>
  `cloudinfra: Tag ${id} was adopted (adoptId), not created: this stack now manages the existing object and deletes it when the resource is deleted`;

describe("the plugin and the engine", () => {
  it("Handshake answers what Configure answers, as the Go engine reads both", async () => {
    const host = await plugin([engine.address]);
    const shake = await handshake(host, engine.address);
    const configureReq = new provproto.ConfigureRequest();
    configureReq.setUrn("urn:pulumi:dev::p::pulumi:providers:cloudinfra::default");
    configureReq.setType("pulumi:providers:cloudinfra");
    configureReq.setName("default");
    configureReq.setAcceptsecrets(true);
    configureReq.setAcceptresources(true);
    const configured = await unary<
      InstanceType<typeof provproto.ConfigureRequest>,
      InstanceType<typeof provproto.ConfigureResponse>
    >(host, "configure", configureReq);
    const fromHandshake = {
      acceptSecrets: shake.getAcceptSecrets(),
      acceptResources: shake.getAcceptResources(),
      acceptOutputs: shake.getAcceptOutputs(),
      supportsAutonamingConfiguration: shake.getSupportsAutonamingConfiguration(),
    };
    expect(fromHandshake).toEqual({
      acceptSecrets: true,
      acceptResources: false,
      acceptOutputs: false,
      supportsAutonamingConfiguration: true,
    });
    expect(shake.getAcceptsByteString()).toBe(false);
    expect({
      acceptSecrets: configured.getAcceptsecrets(),
      acceptResources: configured.getAcceptresources(),
      acceptOutputs: configured.getAcceptoutputs(),
      supportsAutonamingConfiguration: configured.getSupportsAutonamingConfiguration(),
    }).toEqual(fromHandshake);
    expect(configured.getSupportspreview()).toBe(true);
  });

  it("a warning reaches the engine's Log with the resource's URN; CLOUDINFRA_LOG=debug lines arrive as debug messages", async () => {
    const host = await plugin([engine.address], { CLOUDINFRA_LOG: "debug" });
    await handshake(host, engine.address);
    await configure(host);
    const id = await adoptTag(host, "logged");
    expect(await engine.next((l) => l.severity === "warning")).toEqual({
      severity: "warning",
      message: adoptedWarning(id),
      urn: TAG_URN,
    });
    const debug = await engine.next((l) => l.severity === "debug");
    expect(debug.message).toMatch(/^cloudinfra \S+Z /);
    expect(engine.logs.map((l) => l.message).join("\n")).not.toContain(emulator.apiKey);
    expect(host.stderr).not.toContain("was adopted");
  });

  it("an import says what the API cannot read back, as a warning on the imported resource", async () => {
    const host = await plugin([engine.address]);
    await handshake(host, engine.address);
    await configure(host);
    const server = await existingServerIn(emulator, client, "imported-web");
    const urn = "urn:pulumi:dev::p::cloudinfra:index:Server::imported";
    const read = await host.importRead(urn, String(server.id));
    expect(read.id).toBe(String(server.id));
    expect(await engine.next((l) => l.urn === urn)).toEqual({
      severity: "warning",
      message: `cloudinfra: Server ${server.id}: the API does not return the SSH keys a server was created with: the import takes sshKeyIds from the program as they are, unchecked`,
      urn,
    });
  });

  it("a .get() (inputs and state set, both empty) reads the live server made with sshKeyIds, with no warning and nothing unread", async () => {
    const host = await plugin([engine.address]);
    await handshake(host, engine.address);
    await configure(host);
    const { key } = await client.keys.create({ name: "got-key", type: "generate" });
    const [made] = await client.servers.create({
      plan_id: 1,
      image: "ubuntu-24.04",
      user_defined_name: "got-web",
      ssh_key_ids: [key.id],
    });
    if (made === undefined) throw new Error("no server made");
    await emulator.admin.advance({ server_id: made.id });
    const urn = "urn:pulumi:dev::p::cloudinfra:index:Server::got";
    const got = await host.read(urn, String(made.id), {}, {});
    expect(got.id).toBe(String(made.id));
    expect(got.properties).toMatchObject({
      serverId: made.id,
      name: "got-web",
      planId: 1,
      image: "ubuntu-24.04",
      status: "running",
    });
    expect(got.properties).not.toHaveProperty("sshKeyIds");
    expect(got.properties).not.toHaveProperty("__unread");
    // The plugin sends its logs one after the other: once an import's warning is in, a warning
    // of the get before it would be too.
    const imported = "urn:pulumi:dev::p::cloudinfra:index:Server::imported-after-get";
    await host.importRead(imported, String(made.id));
    await engine.next((l) => l.urn === imported);
    expect(engine.logs.filter((l) => l.urn === urn)).toEqual([]);
  });

  it("a User .get() is refused: no call reads a user", async () => {
    const host = await plugin([engine.address]);
    await configure(host);
    const err = await host.read("urn:pulumi:dev::p::cloudinfra:index:User::bot", "1", {}, {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostError);
    expect((err as HostError).message).toContain(
      'cloudinfra: User "1" cannot be read with User.get: the API has no call that reads a user (only create, change role and delete), so nothing could fill in its name, type and role; declare the user in the program instead (a new user, with a new key)',
    );
  });

  it("with no engine answering, the warning goes to stderr and the create still succeeds", async () => {
    const host = await plugin(["127.0.0.1:1"]);
    await configure(host);
    const id = await adoptTag(host, "unlogged");
    await vi.waitFor(() =>
      expect(host.stderr).toContain(`warning ${TAG_URN}: ${adoptedWarning(id)}\n`),
    );
  });

  it("Attach (PULUMI_DEBUG_PROVIDERS: a plugin started by hand) connects it to the engine's Log", async () => {
    const host = await plugin([]);
    const attach = new (
      require("@pulumi/pulumi/proto/plugin_pb.js") as typeof import("@pulumi/pulumi/proto/plugin_pb.js")
    ).PluginAttach();
    attach.setAddress(engine.address);
    await unary(host, "attach", attach);
    await configure(host);
    const id = await adoptTag(host, "attached");
    expect(
      await engine.next((l) => l.severity === "warning" && l.message.includes(`Tag ${id} `)),
    ).toEqual({ severity: "warning", message: adoptedWarning(id), urn: TAG_URN });
  });

  it("Cancel ends a server create's wait within 2 s; the server is kept with its id and the next run reads it", async () => {
    const host = await plugin([engine.address]);
    await handshake(host, engine.address);
    await configure(host);
    const inputs = { name: "cancelled-web", planId: 1, image: "ubuntu-24.04" };
    const creating = host.create(SERVER_URN, inputs).then(
      () => undefined,
      (err: unknown) => err,
    );
    // The create has sent its POST and waits for `running`, which never comes by itself.
    const server = await vi.waitFor(
      async () => {
        const made = (await client.servers.list()).find(
          (s) => s.user_defined_name === "cancelled-web",
        );
        if (made === undefined) throw new Error("no server yet");
        return made;
      },
      { timeout: 10_000, interval: 50 },
    );
    const cancelledAt = Date.now();
    await unary(host, "cancel", new Empty());
    const err = await creating;
    const elapsed = Date.now() - cancelledAt;
    expect(elapsed).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(HostError);
    const failure = err as HostError;
    expect(failure.initFailed?.id).toBe(String(server.id));
    expect(failure.message).toContain(
      `stopped waiting for server ${server.id} to reach "running": aborted`,
    );
    expect(failure.message).toContain(
      `server ${server.id} exists and is kept in the stack: the next pulumi up resumes from it`,
    );
    // The next run: a new plugin reads the server the engine recorded, once it is running.
    await emulator.admin.advance({ server_id: server.id });
    const next = await plugin([engine.address]);
    await configure(next);
    const read = await next.read(
      SERVER_URN,
      String(server.id),
      failure.initFailed?.properties ?? {},
      inputs,
    );
    expect(read.id).toBe(String(server.id));
    expect(read.properties["status"]).toBe("running");
    const named = (await client.servers.list()).filter(
      (s) => s.user_defined_name === "cancelled-web",
    );
    expect(named.map((s) => s.id)).toEqual([server.id]);
  });

  it("a Create's timeout (the user's customTimeouts) is the deadline of the server's wait", async () => {
    const host = await plugin([engine.address]);
    await configure(host);
    const req = new provproto.CreateRequest();
    req.setUrn("urn:pulumi:dev::p::cloudinfra:index:Server::slow");
    req.setProperties(struct({ name: "slow-web", planId: 1, image: "ubuntu-24.04" }));
    req.setTimeout(1); // customTimeouts: { create: "1s" }
    const startedAt = Date.now();
    const err = await unary(host, "create", req).then(
      () => undefined,
      (e: unknown) => e as { details: string },
    );
    const elapsed = Date.now() - startedAt;
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(5_000);
    const slow = (await client.servers.list()).find((s) => s.user_defined_name === "slow-web");
    expect(err?.details).toMatch(
      new RegExp(
        `^cloudinfra: creating Server "slow-web" failed: timed out waiting for server ${slow?.id} to reach "running" \\(create; last status "provisioning"; [0-9.]+m?s elapsed\\); raise customTimeouts.create \\(now 1.0s\\) if it needs longer; server ${slow?.id} exists and is kept in the stack: the next pulumi up resumes from it$`,
      ),
    );
  });
});
