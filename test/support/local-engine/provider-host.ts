/**
 * Drives the real `@pulumi/pulumi` dynamic-provider host over gRPC, as the Pulumi engine does:
 * the host runs as a separate Node process whose working directory is the Pulumi project (it
 * resolves `require()` from there), prints its port, and serves ResourceProvider calls whose
 * properties carry the serialized `__provider`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { grpc, type grpcType, provproto, provrpc, require, Struct, statusproto } from "./proto.ts";
import { type PropertyMap, stripSecretsMap } from "./values.ts";

type StructType = InstanceType<typeof Struct>;

export type Props = Record<string, unknown>;

/** The host script of the @pulumi/pulumi that `projectDir` resolves, as the engine finds it. */
export function dynamicProviderHostPath(projectDir: string): string {
  return require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js", { paths: [projectDir] });
}

/**
 * The environment and spawn options of every process the engine starts (program, dynamic-provider
 * host, plugin): its own process group, as the CLI starts its plugins, so a Ctrl-C in a terminal
 * reaches the engine alone; `orphan-guard.cjs` ends it once the engine is gone.
 */
export function childProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const guard = join(import.meta.dirname, "orphan-guard.cjs");
  const nodeOptions = [env["NODE_OPTIONS"], `--require "${guard}"`].filter(Boolean).join(" ");
  return { ...env, NODE_OPTIONS: nodeOptions };
}

/** Calls `onLine` with each non-blank line of `stream` as it is written. */
export function eachLine(stream: Readable | null, onLine: (line: string) => void): void {
  if (stream === null) return;
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (line.trim() !== "") onLine(line);
  });
}

/** A failure the host reported; `initFailed` is set when it reported a partially created resource. */
export class HostError extends Error {
  readonly code: number;
  readonly initFailed: { id: string; properties: Props; reasons: string[] } | undefined;
  constructor(
    message: string,
    code: number,
    initFailed?: { id: string; properties: Props; reasons: string[] },
  ) {
    super(message);
    this.code = code;
    this.initFailed = initFailed;
  }
}

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}
export type DiffChanges = "none" | "some" | "unknown";
/** One entry of a provider's detailed diff, as `--json` prints it (`kind`: add, update-replace...). */
export interface PropertyDiff {
  kind: string;
  inputDiff: boolean;
}
export interface DiffResult {
  changes: DiffChanges;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** The provider's detailed diff, when it returned one (the dynamic-provider host never does). */
  detailedDiff?: Record<string, PropertyDiff>;
}

const DIFF_KINDS: Record<number, string> = {
  [provproto.PropertyDiff.Kind.ADD]: "add",
  [provproto.PropertyDiff.Kind.ADD_REPLACE]: "add-replace",
  [provproto.PropertyDiff.Kind.DELETE]: "delete",
  [provproto.PropertyDiff.Kind.DELETE_REPLACE]: "delete-replace",
  [provproto.PropertyDiff.Kind.UPDATE]: "update",
  [provproto.PropertyDiff.Kind.UPDATE_REPLACE]: "update-replace",
};

export function struct(value: Props): StructType {
  return Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
}

export function toProps(value: StructType | undefined): Props {
  return (value?.toJavaScript() ?? {}) as Props;
}

function diffResultOf(res: InstanceType<typeof provproto.DiffResponse>): DiffResult {
  const kinds: Record<number, DiffChanges> = {
    [provproto.DiffResponse.DiffChanges.DIFF_NONE]: "none",
    [provproto.DiffResponse.DiffChanges.DIFF_SOME]: "some",
    [provproto.DiffResponse.DiffChanges.DIFF_UNKNOWN]: "unknown",
  };
  const result: DiffResult = {
    changes: kinds[res.getChanges()] ?? "unknown",
    replaces: res.getReplacesList(),
    deleteBeforeReplace: res.getDeletebeforereplace(),
  };
  if (res.getHasdetaileddiff()) {
    const detailed: Record<string, PropertyDiff> = {};
    for (const [key, pd] of res.getDetaileddiffMap().entries()) {
      detailed[key] = { kind: DIFF_KINDS[pd.getKind()] ?? "update", inputDiff: pd.getInputdiff() };
    }
    result.detailedDiff = detailed;
  }
  return result;
}

function decodeError(err: grpcType.ServiceError): HostError {
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

export interface ProviderHostOptions {
  /** Stack configuration handed to Configure, namespaced (`{"cloudinfra:endpoint": ...}`). */
  config: Record<string, string>;
  /** The Pulumi project directory: the host's working directory. */
  cwd: string;
  /** The project's name, which the host reads for `config.get()`. */
  project: string;
  /** The host's environment; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** Told each line the process writes on stderr, as it writes it (the engine's diagnostics). */
  onStderrLine?: (line: string) => void;
  /**
   * A provider plugin instead of the dynamic-provider host: the file to execute (Node by
   * default) and its arguments (it prints its port first). It is not configured: CheckConfig and
   * DiffConfig come first, then `configurePlugin`.
   */
  plugin?: { file?: string; argv: string[]; name: string };
}

export class ProviderHost {
  /** Everything the host wrote on stderr: checked by tests that secrets never appear in it. */
  stderr = "";
  /** What Configure answered: the engine strips secrets from what it sends unless accepted. */
  acceptSecrets = false;
  supportsPreview = false;

  private readonly child: ChildProcess;
  private readonly client: InstanceType<typeof provrpc.ResourceProviderClient>;
  /** Where the process serves gRPC (`127.0.0.1:<the port it printed>`). */
  readonly address: string;

  private constructor(
    child: ChildProcess,
    client: InstanceType<typeof provrpc.ResourceProviderClient>,
    address: string,
  ) {
    this.child = child;
    this.client = client;
    this.address = address;
    child.stderr?.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(options: ProviderHostOptions): Promise<ProviderHost> {
    const env = childProcessEnv(options.env ?? process.env);
    env["PULUMI_NODEJS_PROJECT"] = options.project;
    // The address argument is required but never dialled by the dynamic-provider host.
    const argv = options.plugin?.argv ?? [dynamicProviderHostPath(options.cwd), "127.0.0.1:1"];
    const child = spawn(options.plugin?.file ?? process.execPath, argv, {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    if (options.onStderrLine) eachLine(child.stderr, options.onStderrLine);
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
        fail(
          new Error(
            `${options.plugin?.name ?? "dynamic-provider host"} exited (${code}) before printing its port`,
          ),
        ),
      );
      child.once("error", fail);
    });
    const address = `127.0.0.1:${port}`;
    const client = new provrpc.ResourceProviderClient(address, grpc.credentials.createInsecure());
    const host = new ProviderHost(child, client, address);
    if (!options.plugin) await host.configure(options.config);
    return host;
  }

  private call<Res>(
    invoke: (cb: (err: grpcType.ServiceError | null, res: Res) => void) => unknown,
  ): Promise<Res> {
    return new Promise((ok, fail) => {
      invoke((err, res) => (err ? fail(decodeError(err)) : ok(res)));
    });
  }

  async configure(config: Record<string, string>): Promise<{ acceptSecrets: boolean }> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(struct(config));
    const res = await this.call<InstanceType<typeof provproto.ConfigureResponse>>((cb) =>
      this.client.configure(req, cb),
    );
    this.acceptSecrets = res.getAcceptsecrets();
    this.supportsPreview = res.getSupportspreview();
    return { acceptSecrets: res.getAcceptsecrets() };
  }

  /** A plugin's Configure, as provider_plugin.go sends it: `args` with secrets, which it accepts. */
  async configurePlugin(args: Props): Promise<void> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(struct(args));
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    const res = await this.call<InstanceType<typeof provproto.ConfigureResponse>>((cb) =>
      this.client.configure(req, cb),
    );
    this.acceptSecrets = res.getAcceptsecrets();
    this.supportsPreview = res.getSupportspreview();
  }

  /** What the engine sends this host: secrets stay wrapped only when it accepts them. */
  wire(m: PropertyMap): PropertyMap {
    return this.acceptSecrets ? m : stripSecretsMap(m);
  }

  /** CheckConfig of a provider resource's inputs (the config). */
  async checkConfig(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    const res = await this.call<InstanceType<typeof provproto.CheckResponse>>((cb) =>
      this.client.checkConfig(req, cb),
    );
    return {
      inputs: toProps(res.getInputs()),
      failures: res
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** DiffConfig of a provider resource: its old and new config. */
  async diffConfig(urn: string, olds: Props, news: Props): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setOlds(struct(olds));
    req.setOldInputs(struct(olds));
    req.setNews(struct(news));
    const res = await this.call<InstanceType<typeof provproto.DiffResponse>>((cb) =>
      this.client.diffConfig(req, cb),
    );
    return diffResultOf(res);
  }

  /**
   * Check; `naming` adds what the Go engine also sends (step_generator.go): the resource's random
   * seed and the user's autonaming configuration (`mode`: 0 propose, 1 enforce, 2 disable).
   */
  async check(
    urn: string,
    olds: Props,
    news: Props,
    naming: { randomSeed?: Uint8Array; autonaming?: { proposedName: string; mode: number } } = {},
  ): Promise<CheckResult> {
    const req = new provproto.CheckRequest();
    req.setUrn(urn);
    req.setName(urn.split("::").at(-1) ?? "");
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    if (naming.randomSeed !== undefined) req.setRandomseed(naming.randomSeed);
    if (naming.autonaming !== undefined) {
      const options = new provproto.CheckRequest.AutonamingOptions();
      options.setProposedName(naming.autonaming.proposedName);
      options.setMode(naming.autonaming.mode as 0 | 1 | 2);
      req.setAutonaming(options);
    }
    const res = await this.call<InstanceType<typeof provproto.CheckResponse>>((cb) =>
      this.client.check(req, cb),
    );
    return {
      inputs: toProps(res.getInputs()),
      failures: res
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** `olds` are the old outputs; `oldInputs`, when given, are sent as the engine sends them. */
  async diff(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
    oldInputs?: Props,
  ): Promise<DiffResult> {
    const req = new provproto.DiffRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    if (oldInputs !== undefined) req.setOldInputs(struct(oldInputs));
    const res = await this.call<InstanceType<typeof provproto.DiffResponse>>((cb) =>
      this.client.diff(req, cb),
    );
    return diffResultOf(res);
  }

  async create(
    urn: string,
    properties: Props,
    preview = false,
  ): Promise<{ id: string; properties: Props }> {
    const req = new provproto.CreateRequest();
    req.setUrn(urn);
    req.setProperties(struct(properties));
    req.setPreview(preview);
    const res = await this.call<InstanceType<typeof provproto.CreateResponse>>((cb) =>
      this.client.create(req, cb),
    );
    return { id: res.getId(), properties: toProps(res.getProperties()) };
  }

  /**
   * A refresh (the engine passes the old outputs and inputs) or a `.get()` (ReadStep: the
   * registration's inputs as both, set even when empty). An empty id means "gone".
   */
  async read(
    urn: string,
    id: string,
    properties: Props,
    inputs?: Props,
  ): Promise<{ id: string; properties: Props; inputs: Props | undefined }> {
    const res = await this.readResponse(urn, id, properties, inputs);
    return {
      id: res.getId(),
      properties: toProps(res.getProperties()),
      inputs: res.hasInputs() ? toProps(res.getInputs()) : undefined,
    };
  }

  /**
   * An import's Read (ImportStep of step.go): no state, no inputs, both left unset (the nil maps
   * provider_plugin.go marshals with PropagateNil), where a `.get()` or a refresh sets both. The
   * engine unmarshals the answer with PropagateNil too, so unset properties are nil outputs
   * ("does not exist") and unset inputs nil inputs ("provider does not support importing"); both
   * are `undefined` here.
   */
  async importRead(
    urn: string,
    id: string,
  ): Promise<{ id: string; properties: Props | undefined; inputs: Props | undefined }> {
    const res = await this.readResponse(urn, id, undefined, undefined);
    return {
      id: res.getId(),
      properties: res.hasProperties() ? toProps(res.getProperties()) : undefined,
      inputs: res.hasInputs() ? toProps(res.getInputs()) : undefined,
    };
  }

  private readResponse(
    urn: string,
    id: string,
    properties: Props | undefined,
    inputs: Props | undefined,
  ) {
    const req = new provproto.ReadRequest();
    req.setUrn(urn);
    req.setId(id);
    if (properties !== undefined) req.setProperties(struct(properties));
    if (inputs !== undefined) req.setInputs(struct(inputs));
    return this.call<InstanceType<typeof provproto.ReadResponse>>((cb) =>
      this.client.read(req, cb),
    );
  }

  async update(
    urn: string,
    id: string,
    olds: Props,
    news: Props,
    preview = false,
  ): Promise<{ properties: Props }> {
    const req = new provproto.UpdateRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setOlds(struct(olds));
    req.setNews(struct(news));
    req.setPreview(preview);
    const res = await this.call<InstanceType<typeof provproto.UpdateResponse>>((cb) =>
      this.client.update(req, cb),
    );
    return { properties: toProps(res.getProperties()) };
  }

  async delete(urn: string, id: string, properties: Props): Promise<void> {
    const req = new provproto.DeleteRequest();
    req.setUrn(urn);
    req.setId(id);
    req.setProperties(struct(properties));
    await this.call((cb) => this.client.delete(req, cb));
  }

  /** Invoke of a provider function; check failures come back as an error naming each. */
  async invoke(token: string, args: Props): Promise<Props> {
    const req = new provproto.InvokeRequest();
    req.setTok(token);
    req.setArgs(struct(args));
    const res = await this.call<InstanceType<typeof provproto.InvokeResponse>>((cb) =>
      this.client.invoke(req, cb),
    );
    const failures = res.getFailuresList();
    if (failures.length > 0) {
      throw new Error(
        `${token}: ${failures.map((f) => `${f.getProperty()}: ${f.getReason()}`).join("; ")}`,
      );
    }
    return toProps(res.getReturn());
  }

  /** Kills the host at once (SIGKILL), as a crash or an OOM kill would. */
  kill(): void {
    this.child.kill("SIGKILL");
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
