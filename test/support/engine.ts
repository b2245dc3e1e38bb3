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
 * would run them), keyed by class name.
 */
export function captureProviders(): Record<string, string> {
  const cwd = prepareFixtureProject();
  const out = execFileSync(process.execPath, [join(FIXTURE_PROJECT, "capture-providers.cjs")], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PULUMI_NODEJS_PROJECT: FIXTURE_PROJECT_NAME },
  });
  return JSON.parse(out) as Record<string, string>;
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
    if (this.child.exitCode !== null) return;
    const exited = new Promise((ok) => this.child.once("exit", ok));
    this.child.kill("SIGTERM");
    await exited;
  }
}

/** The URN the engine would give a resource of this class in the fixture stack. */
export function urnOf(className: string, name: string): string {
  return `urn:pulumi:test::${FIXTURE_PROJECT_NAME}::pulumi-nodejs:dynamic/cloudinfra:${className}::${name}`;
}
