/**
 * The `cloudinfra` resource provider plugin: a gRPC `pulumirpc.ResourceProvider` served over the
 * protocol modules `@pulumi/pulumi/proto` ships. `@pulumi/pulumi/provider`'s `main()` (3.270) is
 * not enough: its Configure never hands the provider its configuration, CheckConfig and DiffConfig
 * answer UNIMPLEMENTED, and its Diff drops the detailed diff (docs/native-provider.md).
 *
 * One process serves one provider instance, as the CLI starts one plugin process per provider
 * resource (default or explicit), so each configured instance has its own settings.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { scrub } from "../../api/redact";
import { messageOf } from "../../lib/message";
import type { AutonamingOptions, NamingRequest } from "../../resources/autoname";
import type { OperationLimits } from "../../resources/common";
import { PACKAGE_SCHEMA_FILE, readPackageSchema } from "../package";
import { EngineLog } from "./engine-log";
import { grpc, type grpcType, sdkRequire } from "./grpc";
import type { DiffAnswer, NativeProvider, PropertyDiffKind } from "./provider";
import type { Props } from "./values";

const provrpc =
  require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof import("@pulumi/pulumi/proto/provider_grpc_pb.js");
const provproto =
  require("@pulumi/pulumi/proto/provider_pb.js") as typeof import("@pulumi/pulumi/proto/provider_pb.js");
const pluginproto =
  require("@pulumi/pulumi/proto/plugin_pb.js") as typeof import("@pulumi/pulumi/proto/plugin_pb.js");
const statusproto =
  require("@pulumi/pulumi/proto/status_pb.js") as typeof import("@pulumi/pulumi/proto/status_pb.js");
const { Struct } = sdkRequire(
  "google-protobuf/google/protobuf/struct_pb.js",
) as typeof import("google-protobuf/google/protobuf/struct_pb.js");
const { Empty } = sdkRequire(
  "google-protobuf/google/protobuf/empty_pb.js",
) as typeof import("google-protobuf/google/protobuf/empty_pb.js");
const { Any } = sdkRequire(
  "google-protobuf/google/protobuf/any_pb.js",
) as typeof import("google-protobuf/google/protobuf/any_pb.js");

type StructValue = InstanceType<typeof Struct>;
type Callback = (err: Partial<grpcType.StatusObject> | null, res?: unknown) => void;
type Call<R> = { request: R };

const PACKAGE_ROOT = join(__dirname, "..", "..", "..");

function props(value: StructValue | undefined): Props {
  return (value?.toJavaScript() ?? {}) as Props;
}

function struct(value: Props): StructValue {
  return Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** The package's version, which the plugin reports. */
export function pluginVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** The package schema the package ships (`schema/pulumi-schema.json`), as GetSchema returns it. */
function schemaText(): string {
  try {
    return readPackageSchema();
  } catch (err) {
    throw new Error(
      `cloudinfra: the package schema ${PACKAGE_SCHEMA_FILE} cannot be read: ${String(err)}`,
    );
  }
}

const KINDS: Record<PropertyDiffKind, Record<"plain" | "replace", number>> = {
  add: {
    plain: provproto.PropertyDiff.Kind.ADD,
    replace: provproto.PropertyDiff.Kind.ADD_REPLACE,
  },
  delete: {
    plain: provproto.PropertyDiff.Kind.DELETE,
    replace: provproto.PropertyDiff.Kind.DELETE_REPLACE,
  },
  update: {
    plain: provproto.PropertyDiff.Kind.UPDATE,
    replace: provproto.PropertyDiff.Kind.UPDATE_REPLACE,
  },
};

function diffResponse(answer: DiffAnswer): InstanceType<typeof provproto.DiffResponse> {
  const res = new provproto.DiffResponse();
  res.setChanges(
    answer.changes
      ? provproto.DiffResponse.DiffChanges.DIFF_SOME
      : provproto.DiffResponse.DiffChanges.DIFF_NONE,
  );
  res.setReplacesList(answer.replaces);
  res.setDeletebeforereplace(answer.deleteBeforeReplace);
  res.setDiffsList(Object.keys(answer.detailedDiff));
  res.setHasdetaileddiff(true);
  const detailed = res.getDetaileddiffMap();
  for (const [key, diff] of Object.entries(answer.detailedDiff)) {
    const pd = new provproto.PropertyDiff();
    pd.setKind(KINDS[diff.kind][diff.replace ? "replace" : "plain"]);
    pd.setInputdiff(true);
    detailed.set(key, pd);
  }
  return res;
}

function checkFailures(
  failures: readonly { property: string; reason: string }[],
): InstanceType<typeof provproto.CheckFailure>[] {
  return failures.map((f) => {
    const failure = new provproto.CheckFailure();
    failure.setProperty(f.property);
    failure.setReason(f.reason);
    return failure;
  });
}

function checkResponse(answer: {
  inputs: Props;
  failures: { property: string; reason: string }[];
}): InstanceType<typeof provproto.CheckResponse> {
  const res = new provproto.CheckResponse();
  res.setInputs(struct(answer.inputs));
  res.setFailuresList(checkFailures(answer.failures));
  return res;
}

/**
 * An error as a gRPC status. A create that the service accepted but that did not finish carries
 * the new id and properties (resources/common.ts `partialCreateError`) as
 * `ErrorResourceInitFailed`, so the engine records the object instead of orphaning it.
 */
function statusOf(err: unknown, secrets: readonly string[]): Partial<grpcType.StatusObject> {
  const message = scrub(messageOf(err), [...secrets]);
  const partial = err as { id?: unknown; properties?: unknown; reasons?: unknown };
  if (typeof partial.id !== "string" || partial.id === "") {
    return { code: grpc.status.UNKNOWN, details: message };
  }
  const init = new provproto.ErrorResourceInitFailed();
  init.setId(partial.id);
  const properties: Props = {};
  for (const [k, v] of Object.entries((partial.properties ?? {}) as Props)) {
    if (v !== undefined && k !== "__provider") properties[k] = v;
  }
  init.setProperties(struct(properties));
  init.setReasonsList(Array.isArray(partial.reasons) ? partial.reasons.map(String) : [message]);
  const any = new Any();
  any.pack(init.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

/**
 * What this plugin can take, as Handshake and Configure both answer it (they must agree: an
 * engine that handshakes never reads Configure's answer, an older one reads only that).
 * Secrets: yes, every value is unwrapped and rewrapped (values.ts). Resource references, output
 * values and byte strings: no, the engine sends them as plain values. Autonaming configuration:
 * yes, Check reads it (../../resources/autoname.ts).
 */
export const CAPABILITIES = {
  acceptSecrets: true,
  supportsPreview: true,
  acceptResources: false,
  acceptOutputs: false,
  supportsAutonamingConfiguration: true,
  acceptsByteString: false,
} as const;

/**
 * Serves one provider instance; `listen()` resolves its port. Only the gRPC library and the
 * protocol modules load before that: the provider's own code (the API client, its schemas, the
 * HTTP stack) loads on the first call that needs it, or at `preload()`, which `main` calls once
 * the port is printed, so that the loading overlaps the engine's connecting.
 */
export class PluginServer {
  private loading: Promise<NativeProvider> | undefined;
  private readonly server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
  });
  /** Secrets this instance was configured with: scrubbed from every error it returns. */
  private secrets: string[] = [];
  /** The engine's `Log` service, or stderr until its address is known. */
  readonly log: EngineLog;

  /** `engineAddress`: the plugin's argument, as the CLI starts it. */
  constructor(engineAddress?: string) {
    this.log = new EngineLog(engineAddress);
    const answer = <R>(cb: Callback, work: () => R | Promise<R>) => {
      Promise.resolve()
        .then(work)
        .then(
          (res) => cb(null, res),
          (err: unknown) => cb(statusOf(err, this.secrets)),
        );
    };
    /** `answer`, once the provider's code is loaded. */
    const withProvider = <R>(cb: Callback, work: (p: NativeProvider) => R | Promise<R>) =>
      answer(cb, async () => work(await this.provider()));
    this.server.addService(provrpc.ResourceProviderService, {
      getPluginInfo: (_call: unknown, cb: Callback) => {
        const res = new pluginproto.PluginInfo();
        res.setVersion(pluginVersion());
        cb(null, res);
      },
      getSchema: (_call: unknown, cb: Callback) =>
        answer(cb, () => new provproto.GetSchemaResponse().setSchema(schemaText())),
      checkConfig: (call: Call<InstanceType<typeof provproto.CheckRequest>>, cb: Callback) =>
        withProvider(cb, (p) => checkResponse(p.checkConfig(props(call.request.getNews())))),
      diffConfig: (call: Call<InstanceType<typeof provproto.DiffRequest>>, cb: Callback) =>
        withProvider(cb, (p) => {
          const req = call.request;
          const olds = req.hasOldInputs() ? props(req.getOldInputs()) : props(req.getOlds());
          return diffResponse(p.diffConfig(olds, props(req.getNews())));
        }),
      configure: (call: Call<InstanceType<typeof provproto.ConfigureRequest>>, cb: Callback) =>
        withProvider(cb, (p) => {
          const req = call.request;
          const args = req.hasArgs() ? props(req.getArgs()) : variablesAsArgs(req);
          const key = args["apiKey"];
          const plain = typeof key === "object" && key !== null ? (key as Props)["value"] : key;
          if (typeof plain === "string" && plain !== "") this.secrets = [plain];
          p.configure(args);
          const res = new provproto.ConfigureResponse();
          res.setAcceptsecrets(CAPABILITIES.acceptSecrets);
          res.setSupportspreview(CAPABILITIES.supportsPreview);
          res.setAcceptresources(CAPABILITIES.acceptResources);
          res.setAcceptoutputs(CAPABILITIES.acceptOutputs);
          res.setSupportsAutonamingConfiguration(CAPABILITIES.supportsAutonamingConfiguration);
          return res;
        }),
      handshake: (
        call: Call<InstanceType<typeof provproto.ProviderHandshakeRequest>>,
        cb: Callback,
      ) =>
        answer(cb, () => {
          this.log.connect(call.request.getEngineAddress());
          const res = new provproto.ProviderHandshakeResponse();
          res.setAcceptSecrets(CAPABILITIES.acceptSecrets);
          res.setAcceptResources(CAPABILITIES.acceptResources);
          res.setAcceptOutputs(CAPABILITIES.acceptOutputs);
          res.setSupportsAutonamingConfiguration(CAPABILITIES.supportsAutonamingConfiguration);
          res.setAcceptsByteString(CAPABILITIES.acceptsByteString);
          return res;
        }),
      attach: (call: Call<InstanceType<typeof pluginproto.PluginAttach>>, cb: Callback) =>
        answer(cb, () => {
          this.log.connect(call.request.getAddress());
          return new Empty();
        }),
      check: (call: Call<InstanceType<typeof provproto.CheckRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          return checkResponse(
            await p.check(req.getUrn(), props(req.getOlds()), props(req.getNews()), namingOf(req)),
          );
        }),
      diff: (call: Call<InstanceType<typeof provproto.DiffRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          return diffResponse(
            await p.diff(
              req.getUrn(),
              req.getId(),
              props(req.getOlds()),
              props(req.getNews()),
              props(req.getOldInputs()),
            ),
          );
        }),
      create: (call: Call<InstanceType<typeof provproto.CreateRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          const made = await p.create(
            req.getUrn(),
            props(req.getProperties()),
            req.getPreview(),
            limitsOf(req.getTimeout()),
          );
          const res = new provproto.CreateResponse();
          res.setId(made.id);
          res.setProperties(struct(made.outputs));
          return res;
        }),
      read: (call: Call<InstanceType<typeof provproto.ReadRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          // Unset and empty differ: an import sets neither, a `.get()` both (see readPurpose).
          const read = await p.read(
            req.getUrn(),
            req.getId(),
            req.hasProperties() ? props(req.getProperties()) : undefined,
            req.hasInputs() ? props(req.getInputs()) : undefined,
            limitsOf(req.getTimeout()),
          );
          const res = new provproto.ReadResponse();
          res.setId(read.id);
          // Gone: no properties at all. The engine unmarshals them with PropagateNil, so an unset
          // struct reads as "does not exist" (a refresh drops the resource, an import says the id
          // does not exist), where an empty but set one would read as an object without inputs
          // ("provider does not support importing resources").
          if (read.id === "") return res;
          res.setProperties(struct(read.outputs));
          if (read.inputs !== undefined) res.setInputs(struct(read.inputs));
          return res;
        }),
      update: (call: Call<InstanceType<typeof provproto.UpdateRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          const updated = await p.update(
            req.getUrn(),
            req.getId(),
            props(req.getOlds()),
            props(req.getNews()),
            req.getPreview(),
            limitsOf(req.getTimeout()),
          );
          const res = new provproto.UpdateResponse();
          res.setProperties(struct(updated.outputs));
          return res;
        }),
      delete: (call: Call<InstanceType<typeof provproto.DeleteRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          await p.delete(
            req.getUrn(),
            req.getId(),
            props(req.getProperties()),
            limitsOf(req.getTimeout()),
          );
          return new Empty();
        }),
      invoke: (call: Call<InstanceType<typeof provproto.InvokeRequest>>, cb: Callback) =>
        withProvider(cb, async (p) => {
          const req = call.request;
          const res = new provproto.InvokeResponse();
          const answer = await p.invoke(req.getTok(), props(req.getArgs()));
          // A data source's refusal is the invoke's failure, as the protocol says, not an error.
          if ("failures" in answer) res.setFailuresList(checkFailures(answer.failures));
          else res.setReturn(struct(answer.result));
          return res;
        }),
      // Ends the in-flight waits of the provider (if its code is loaded: else none are running).
      cancel: (_call: unknown, cb: Callback) =>
        answer(cb, async () => {
          if (this.loading !== undefined) (await this.loading).cancel();
          return new Empty();
        }),
      getMapping: (_call: unknown, cb: Callback) =>
        cb(null, new provproto.GetMappingResponse().setProvider("").setData("")),
      getMappings: (_call: unknown, cb: Callback) => cb(null, new provproto.GetMappingsResponse()),
    });
  }

  /** The provider instance, its code loaded on first use. */
  provider(): Promise<NativeProvider> {
    this.loading ??= import("./provider.ts").then(
      ({ NativeProvider }) => new NativeProvider(this.log),
    );
    return this.loading;
  }

  /** Loads the provider's code now, off the path of the first call that needs it. */
  preload(): void {
    // A failure to load is reported by the first call, which awaits the same promise.
    this.provider().catch(() => undefined);
  }

  listen(): Promise<number> {
    return new Promise((ok, fail) => {
      this.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) =>
        err ? fail(err) : ok(port),
      );
    });
  }

  close(): Promise<void> {
    this.log.close();
    return new Promise((ok) => this.server.tryShutdown(() => ok()));
  }
}

/** A request's `timeout` (seconds; 0 when the user set no `customTimeouts`) as the operation's limit. */
function limitsOf(timeoutSeconds: number): OperationLimits {
  return timeoutSeconds > 0 ? { timeoutMs: Math.round(timeoutSeconds * 1000) } : {};
}

const MODES: Record<number, AutonamingOptions["mode"]> = {
  [provproto.CheckRequest.AutonamingOptions.Mode.PROPOSE]: "propose",
  [provproto.CheckRequest.AutonamingOptions.Mode.ENFORCE]: "enforce",
  [provproto.CheckRequest.AutonamingOptions.Mode.DISABLE]: "disable",
};

/** What a Check request says about naming: the logical name, the seed, the user's configuration. */
function namingOf(req: InstanceType<typeof provproto.CheckRequest>): NamingRequest {
  const urn = req.getUrn();
  const naming: NamingRequest = { logicalName: req.getName() || (urn.split("::").at(-1) ?? "") };
  const seed = req.getRandomseed_asU8();
  if (seed.length > 0) naming.randomSeed = seed;
  const options = req.getAutonaming();
  if (options !== undefined) {
    naming.autonaming = {
      mode: MODES[options.getMode()] ?? "propose",
      proposedName: options.getProposedName(),
    };
  }
  return naming;
}

/** Older engines send only `variables` (`cloudinfra:config:endpoint`): the same settings. */
function variablesAsArgs(req: InstanceType<typeof provproto.ConfigureRequest>): Props {
  const args: Props = {};
  for (const [key, value] of req.getVariablesMap().entries()) {
    const match = /^cloudinfra:config:(\w+)$/.exec(key);
    if (match?.[1] !== undefined) args[match[1]] = value;
  }
  return args;
}
