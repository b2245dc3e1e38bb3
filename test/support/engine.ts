/**
 * Drives the real `@pulumi/pulumi` dynamic-provider host over gRPC, exactly as the Pulumi engine
 * does: the host runs as a separate Node process whose working directory is a Pulumi project that
 * depends on the built package, prints its port, and serves ResourceProvider calls whose
 * properties carry the serialized `__provider` captured from our real resource classes.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { expect } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import type { EmulatorOptions } from "../../src/emulator";
import { stackConfigFor, startTestEmulator, type TestEmulator } from "./emulator";

export type Props = Record<string, unknown>;

export const ROOT = resolve(__dirname, "..", "..");
export const FIXTURE_PROJECT = join(ROOT, "test", "engine", "fixture");
export const FIXTURE_PROJECT_NAME = "engine-fixture";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const HOST = join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js");

/**
 * Makes the fixture project depend on the package the way `"pulumi-cloudinfra": "file:../../.."`
 * does after `npm install`: a link in its node_modules to the package root, whose `dist/` must be
 * built (the host cannot load TypeScript).
 */
export function prepareFixtureProject(): string {
  if (!existsSync(join(ROOT, "dist", "provider.js"))) {
    throw new Error("dist/ is not built: run `npm run build` (npm test does it first)");
  }
  const modules = join(FIXTURE_PROJECT, "node_modules");
  const link = join(modules, "pulumi-cloudinfra");
  mkdirSync(modules, { recursive: true });
  if (!existsSync(link) || !lstatSync(link).isSymbolicLink()) {
    rmSync(link, { recursive: true, force: true });
    try {
      symlinkSync(ROOT, link, "dir");
    } catch (err) {
      // Another test file made the same link at the same moment.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return FIXTURE_PROJECT;
}

/**
 * The serialized `__provider` of each resource class, captured by constructing the classes of the
 * built package under `pulumi.runtime.setMocks` in a separate Node process (as a user's program
 * would run them), keyed by class name. `extraEnv` is added to the environment of that process.
 */
export function captureProviders(extraEnv: NodeJS.ProcessEnv = {}): Record<string, string> {
  const out = runInFixtureProject([join(FIXTURE_PROJECT, "capture-providers.cjs")], extraEnv);
  return JSON.parse(out) as Record<string, string>;
}

/**
 * What the SDK sends the engine as `additionalSecretOutputs` for each resource `program`
 * registers, by resource name. `program` is JavaScript run in the fixture project as a user's
 * program, under Pulumi's mocks: `entry` names the package's main module, and `program` must
 * set `resources` to the resources it made.
 */
export function registeredSecretOutputs(program: string): Record<string, string[]> {
  const script = `
      const { createRequire } = require("node:module");
      const entry = require.resolve("pulumi-cloudinfra", { paths: [process.cwd()] });
      const fromPackage = createRequire(entry);
      const pulumi = fromPackage("@pulumi/pulumi");
      const { MockMonitor } = fromPackage("@pulumi/pulumi/runtime/mocks");
      const seen = {};
      const register = MockMonitor.prototype.registerResource;
      MockMonitor.prototype.registerResource = function (req, callback) {
        seen[req.getName()] = req.getAdditionalsecretoutputsList();
        return register.call(this, req, callback);
      };
      pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, "p", "s", false);
      ${program}
      Promise.all(resources.map((r) => new Promise((ok) => r.urn.apply(ok)))).then(() =>
        process.stdout.write(JSON.stringify(seen)),
      );
    `;
  return JSON.parse(runInFixtureProject(["-e", script])) as Record<string, string[]>;
}

/** Runs Node with `args` in the fixture project, as the Pulumi CLI runs a program; its stdout. */
function runInFixtureProject(args: string[], extraEnv: NodeJS.ProcessEnv = {}): string {
  return execFileSync(process.execPath, args, {
    cwd: prepareFixtureProject(),
    encoding: "utf8",
    env: { ...process.env, PULUMI_NODEJS_PROJECT: FIXTURE_PROJECT_NAME, ...extraEnv },
  });
}

/** A failure the host reported; `initFailed` is set when it reported a partially created resource. */
export class HostError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly initFailed?: { id: string; properties: Props; reasons: string[] },
  ) {
    super(message);
  }
}

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}
export type DiffChanges = "none" | "some" | "unknown";
export interface DiffResult {
  changes: DiffChanges;
  replaces: string[];
  deleteBeforeReplace: boolean;
}

function struct(value: Props): Struct {
  return Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
}

function toProps(value: Struct | undefined): Props {
  return (value?.toJavaScript() ?? {}) as Props;
}

function decodeError(err: grpc.ServiceError): HostError {
  const details = err.metadata?.get("grpc-status-details-bin")[0];
  if (details instanceof Buffer) {
    const status = statusproto.Status.deserializeBinary(details);
    for (const any of status.getDetailsList()) {
      if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
        const init = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
        return new HostError(err.details, err.code, {
          id: init.getId(),
          properties: toProps(init.getProperties()),
          reasons: init.getReasonsList(),
        });
      }
    }
  }
  return new HostError(err.details, err.code);
}

export interface StartOptions {
  /** Stack configuration handed to Configure, e.g. `{"cloudinfra:endpoint": ...}`. */
  config: Record<string, string>;
  /** Environment of the host process; by default ours without any CLOUDINFRA_* variable. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export class EngineHost {
  /** Everything the host wrote on stderr: checked by tests that secrets never appear in it. */
  stderr = "";

  private constructor(
    private readonly child: ChildProcess,
    private readonly client: provrpc.ResourceProviderClient,
  ) {
    child.stderr?.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
  }

  static async start(options: StartOptions): Promise<EngineHost> {
    const cwd = options.cwd ?? prepareFixtureProject();
    const env: NodeJS.ProcessEnv = options.env ?? { ...process.env };
    if (options.env === undefined) {
      for (const k of Object.keys(env)) if (k.startsWith("CLOUDINFRA_")) delete env[k];
    }
    env["PULUMI_NODEJS_PROJECT"] = FIXTURE_PROJECT_NAME;
    // The address argument is required but never dialled by the dynamic-provider host.
    const child = spawn(process.execPath, [HOST, "127.0.0.1:1"], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const port = await new Promise<string>((ok, fail) => {
      let buffered = "";
      const onData = (d: Buffer) => {
        buffered += d.toString();
        const line = buffered.split("\n")[0];
        if (buffered.includes("\n") && line !== undefined) {
          child.stdout?.off("data", onData);
          ok(line.trim());
        }
      };
      child.stdout?.on("data", onData);
      child.once("exit", (code) =>
        fail(new Error(`dynamic-provider host exited (${code}) before printing its port`)),
      );
      child.once("error", fail);
    });
    const client = new provrpc.ResourceProviderClient(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
    );
    const host = new EngineHost(child, client);
    await host.configure(options.config);
    return host;
  }

  private call<Res>(
    invoke: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown,
  ): Promise<Res> {
    return new Promise((ok, fail) => {
      invoke((err, res) => (err ? fail(decodeError(err)) : ok(res)));
    });
  }

  async configure(config: Record<string, string>): Promise<{ acceptSecrets: boolean }> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(struct(config));
    const res = await this.call<provproto.ConfigureResponse>((cb) =>
      this.client.configure(req, cb),
    );
    return { acceptSecrets: res.getAcceptsecrets() };
  }

  async check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.call<provproto.CheckResponse>((cb) => this.client.check(req, cb));
    return {
      inputs: toProps(res.getInputs()),
      failures: res
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(urn: string, id: string, olds: Props, news: Props): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.call<provproto.DiffResponse>((cb) => this.client.diff(req, cb));
    const kinds: Record<number, DiffChanges> = {
      [provproto.DiffResponse.DiffChanges.DIFF_NONE]: "none",
      [provproto.DiffResponse.DiffChanges.DIFF_SOME]: "some",
      [provproto.DiffResponse.DiffChanges.DIFF_UNKNOWN]: "unknown",
    };
    return {
      changes: kinds[res.getChanges()] ?? "unknown",
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  async create(urn: string, properties: Props): Promise<{ id: string; properties: Props }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(struct(properties));
    const res = await this.call<provproto.CreateResponse>((cb) => this.client.create(req, cb));
    return { id: res.getId(), properties: toProps(res.getProperties()) };
  }

  /** A refresh: the engine passes the old outputs and inputs. An empty id means "gone". */
  async read(
    urn: string,
    id: string,
    properties: Props,
    inputs?: Props,
  ): Promise<{ id: string; properties: Props; inputs: Props | undefined }> {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(struct(properties));
    if (inputs !== undefined) req.setInputs(struct(inputs));
    const res = await this.call<provproto.ReadResponse>((cb) => this.client.read(req, cb));
    return {
      id: res.getId(),
      properties: toProps(res.getProperties()),
      inputs: res.hasInputs() ? toProps(res.getInputs()) : undefined,
    };
  }

  async update(urn: string, id: string, olds: Props, news: Props): Promise<{ properties: Props }> {
    const req = new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.call<provproto.UpdateResponse>((cb) => this.client.update(req, cb));
    return { properties: toProps(res.getProperties()) };
  }

  async delete(urn: string, id: string, properties: Props): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(struct(properties));
    await this.call((cb) => this.client.delete(req, cb));
  }

  async close(): Promise<void> {
    this.client.close();
    // A child killed by a signal has no exit code, only a signal code: closing twice is a no-op.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((ok) => this.child.once("exit", ok));
    this.child.kill("SIGTERM");
    await exited;
  }
}

/** The URN the engine would give a resource of this class in the fixture stack. */
export function urnOf(className: string, name: string): string {
  return `urn:pulumi:test::${FIXTURE_PROJECT_NAME}::pulumi-nodejs:dynamic/cloudinfra:${className}::${name}`;
}

export interface EngineFixtureOptions {
  /** Options of the in-process emulator (its lifecycle, say); the emulator's defaults otherwise. */
  emulator?: EmulatorOptions;
  /**
   * Run every host with the client's debug log on (`CLOUDINFRA_LOG=debug`), so that each request
   * and answer reaches the host's stderr; by default a host has no CLOUDINFRA_* variable at all.
   */
  debugLog?: boolean;
}

/** What `up()` returns: the URN, the inputs Check stored, and what Create answered. */
export interface Created {
  urn: string;
  inputs: Props;
  id: string;
  properties: Props;
}

/**
 * What a clean refresh is to the engine: Read returns the stored id, outputs and inputs unchanged,
 * and a Diff of the same program against the refreshed outputs plans nothing. Returns the Read.
 */
export async function expectCleanRefresh(
  host: EngineHost,
  urn: string,
  created: { id: string; properties: Props },
  inputs: Props,
): Promise<Awaited<ReturnType<EngineHost["read"]>>> {
  const refreshed = await host.read(urn, created.id, created.properties, inputs);
  expect(refreshed).toEqual({ id: created.id, properties: created.properties, inputs });
  expect(await host.diff(urn, created.id, refreshed.properties, inputs)).toEqual({
    changes: "none",
    replaces: [],
    deleteBeforeReplace: false,
  });
  return refreshed;
}

/** Neither what the fixture's hosts wrote on stderr nor any error `failure()` saw holds `secret`. */
function expectNeverShown(fx: EngineFixture, secret: string): void {
  expect(fx.stderr()).not.toContain(secret);
  for (const message of fx.errors) expect(message).not.toContain(secret);
}

/**
 * Closes the fixture's hosts, then checks what their debug log recorded: traffic (`logged`, a
 * request line such as `GET /v1/tags`) and, there or in any error, none of `secrets`.
 */
export async function closeHostsCheckingLog(
  fx: EngineFixture,
  logged: string,
  secrets: readonly string[],
): Promise<void> {
  await fx.closeHosts();
  expect(fx.stderr()).toContain(logged);
  for (const secret of secrets) expectNeverShown(fx, secret);
}

/**
 * An emulator, a client of it, the serialized providers and a dynamic-provider host configured
 * for the emulator: what every engine test starts with. Start it in `beforeAll`, close it in
 * `afterAll` (after any check of `stderr()` or `errors`).
 */
export interface EngineFixture {
  emulator: TestEmulator;
  /** A client of the emulator, for the test's own arrangements and checks. */
  client: CloudInfraClient;
  /** The first host, started with the fixture. */
  host: EngineHost;
  /** Every host `startHost()` started, the first included. */
  hosts: EngineHost[];
  /** The serialized `__provider` of each resource class of the built package, by class name. */
  providers: Record<string, string>;
  /** The stack configuration that points a host at the emulator. */
  config: Record<string, string>;
  /** The message of every error `failure()` saw, for checks that no secret is in one. */
  errors: string[];
  /** A further host with the fixture's configuration and environment, as a new operation starts. */
  startHost(): Promise<EngineHost>;
  /** The serialized `__provider` of `className`; throws when the built package has no such class. */
  provider(className: string): string;
  /** What a program passes: `props` plus the serialized provider of `className`. */
  withProvider(className: string, props: Props): Props;
  /** The HostError `promise` rejects with, recorded in `errors`; fails the test if it resolves. */
  failure(promise: Promise<unknown>): Promise<HostError>;
  /**
   * Check (which must report no failure) then Create with the checked inputs, on the first host,
   * as `pulumi up` does for a new resource.
   */
  up(className: string, name: string, args: Props): Promise<Created>;
  /** What every host wrote on stderr, one host after another. */
  stderr(): string;
  /** Stops every host; `stderr()` stays readable. */
  closeHosts(): Promise<void>;
  /** Stops every host, the client and the emulator. */
  close(): Promise<void>;
}

/** Starts an {@link EngineFixture}; on a failure, closes what it had started and rethrows. */
export async function startEngineFixture(
  options: EngineFixtureOptions = {},
): Promise<EngineFixture> {
  const emulator = await startTestEmulator(options.emulator);
  const client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  const config = stackConfigFor(emulator);
  const hosts: EngineHost[] = [];
  const errors: string[] = [];
  const closeHosts = async () => {
    for (const h of hosts) await h.close();
  };
  const close = async () => {
    await closeHosts();
    await client.close();
    await emulator.close();
  };
  const startHost = async () => {
    let env: NodeJS.ProcessEnv | undefined;
    if (options.debugLog === true) {
      env = {};
      for (const [k, v] of Object.entries(process.env)) {
        if (!k.startsWith("CLOUDINFRA_")) env[k] = v;
      }
      env["CLOUDINFRA_LOG"] = "debug";
    }
    const started = await EngineHost.start(env === undefined ? { config } : { config, env });
    hosts.push(started);
    return started;
  };
  try {
    const providers = captureProviders();
    const host = await startHost();
    const provider = (className: string) => {
      const captured = providers[className];
      if (captured === undefined) throw new Error(`the built package has no ${className} class`);
      return captured;
    };
    const withProvider = (className: string, props: Props) => ({
      ...props,
      __provider: provider(className),
    });
    return {
      emulator,
      client,
      host,
      hosts,
      providers,
      config,
      errors,
      startHost,
      provider,
      withProvider,
      async failure(promise) {
        const err = await promise.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(HostError);
        errors.push((err as HostError).message);
        return err as HostError;
      },
      async up(className, name, args) {
        const urn = urnOf(className, name);
        const checked = await host.check(urn, {}, withProvider(className, args));
        expect(checked.failures).toEqual([]);
        const created = await host.create(urn, checked.inputs);
        return { urn, inputs: checked.inputs, ...created };
      },
      stderr: () => hosts.map((h) => h.stderr).join("\n"),
      closeHosts,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
