/**
 * The gRPC side of the engine that a program talks to: `pulumirpc.ResourceMonitor` and
 * `pulumirpc.Engine` (pkg/resource/deploy/source_eval.go `resmon`, pkg/engine's engine server),
 * answering as the Go engine does and handing each registration to the deployment.
 */
import type { Deployment, Diagnostic, Goal } from "./deployment.ts";
import { pluginPackageOf } from "./plugin-providers.ts";
import { Empty, engineproto, enginerpc, grpc, type grpcType, resproto, resrpc } from "./proto.ts";
import { struct, toProps } from "./provider-host.ts";
import { downgradeMap, type PropertyMap } from "./values.ts";

type RegisterRequest = InstanceType<typeof resproto.RegisterResourceRequest>;
type Callback<T> = (
  err: grpcType.ServiceError | null | Partial<grpcType.StatusObject>,
  res?: T,
) => void;
type Call<T> = { request: T };

/** `supportedMonitorFeatures` of source_eval.go (state migrations off, as the CLI has them). */
const FEATURES = [
  "RESOURCE_MONITOR_FEATURE_SECRETS",
  "RESOURCE_MONITOR_FEATURE_RESOURCE_REFERENCES",
  "RESOURCE_MONITOR_FEATURE_OUTPUT_VALUES",
  "RESOURCE_MONITOR_FEATURE_ALIAS_SPECS",
  "RESOURCE_MONITOR_FEATURE_REPLACEMENT_TRIGGER",
  "RESOURCE_MONITOR_FEATURE_DELETED_WITH",
  "RESOURCE_MONITOR_FEATURE_REPLACE_WITH",
  "RESOURCE_MONITOR_FEATURE_TRANSFORMS",
  "RESOURCE_MONITOR_FEATURE_INVOKE_TRANSFORMS",
  "RESOURCE_MONITOR_FEATURE_PARAMETERIZATION",
  "RESOURCE_MONITOR_FEATURE_RESOURCE_HOOKS",
  "RESOURCE_MONITOR_FEATURE_ERROR_HOOKS",
  "RESOURCE_MONITOR_FEATURE_SENDS_OPTIONS_TO_HOOKS",
  "RESOURCE_MONITOR_FEATURE_BYTE_STRING",
  "RESOURCE_MONITOR_FEATURE_INVOKE_DEPENDS_ON",
  "RESOURCE_MONITOR_FEATURE_INVOKE_PARENT",
] as const;
const LEGACY_FEATURES = new Set([
  "secrets",
  "resourceReferences",
  "outputValues",
  "aliasSpecs",
  "replacementTrigger",
  "deletedWith",
  "replaceWith",
  "transforms",
  "invokeTransforms",
  "parameterization",
  "resourceHooks",
  "errorHooks",
  "sendsOptionsToHooks",
]);

const SEVERITY: Record<number, Diagnostic["severity"]> = {
  [engineproto.LogSeverity.DEBUG]: "debug",
  [engineproto.LogSeverity.INFO]: "info",
  [engineproto.LogSeverity.WARNING]: "warning",
  [engineproto.LogSeverity.ERROR]: "error",
};

export interface MonitorContext {
  project: string;
  stack: string;
  organization: string;
  dryRun: boolean;
  parallel: number;
  config: Record<string, string>;
  secretKeys: readonly string[];
}

function unavailable(details: string): Partial<grpcType.StatusObject> {
  return { code: grpc.status.UNAVAILABLE, details };
}

function unimplemented(what: string): Partial<grpcType.StatusObject> {
  return {
    code: grpc.status.UNIMPLEMENTED,
    details: `${what} is not implemented by the local engine`,
  };
}

function aliasUrns(deployment: Deployment, req: RegisterRequest, ctx: MonitorContext): string[] {
  const urns = [...req.getAliasurnsList()];
  for (const alias of req.getAliasesList()) {
    if (alias.hasUrn()) {
      urns.push(alias.getUrn());
      continue;
    }
    const spec = alias.getSpec();
    if (!spec) continue;
    const parent = spec.hasParenturn()
      ? spec.getParenturn()
      : spec.hasNoparent() && spec.getNoparent()
        ? ""
        : req.getParent();
    const urn = deployment.urnOf(
      spec.getType() || req.getType(),
      spec.getName() || req.getName(),
      parent,
    );
    urns.push(
      urn.replace(
        `urn:pulumi:${ctx.stack}::${ctx.project}::`,
        `urn:pulumi:${spec.getStack() || ctx.stack}::${spec.getProject() || ctx.project}::`,
      ),
    );
  }
  return urns;
}

function goalOf(deployment: Deployment, req: RegisterRequest, ctx: MonitorContext): Goal {
  const propertyDependencies: Record<string, string[]> = {};
  for (const [key, deps] of req.getPropertydependenciesMap().entries()) {
    propertyDependencies[key] = deps.getUrnsList();
  }
  return {
    type: req.getType(),
    name: req.getName(),
    custom: req.getCustom(),
    parent: req.getParent(),
    inputs: downgradeMap(toProps(req.getObject()) as PropertyMap),
    dependencies: req.getDependenciesList(),
    propertyDependencies,
    deleteBeforeReplace: req.getDeletebeforereplacedefined()
      ? req.getDeletebeforereplace()
      : undefined,
    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    aliases: aliasUrns(deployment, req, ctx),
    ...(req.getProvider() ? { provider: req.getProvider() } : {}),
    ...(req.getImportid() ? { importId: req.getImportid() } : {}),
  };
}

/** Serves the monitor and engine for one run of a program; `address` once `listen()` resolved. */
export class MonitorServer {
  private readonly server = new grpc.Server();
  address = "";
  rootResource = "";

  constructor(d: Deployment, ctx: MonitorContext) {
    this.server.addService(resrpc.ResourceMonitorService, {
      supportsFeature: (
        call: Call<InstanceType<typeof resproto.SupportsFeatureRequest>>,
        cb: Callback<unknown>,
      ) => {
        const res = new resproto.SupportsFeatureResponse();
        res.setHassupport(LEGACY_FEATURES.has(call.request.getId()));
        cb(null, res);
      },
      getDeploymentInfo: (_call: unknown, cb: Callback<unknown>) => {
        const res = new resproto.DeploymentInfo();
        res.setProject(ctx.project);
        res.setStack(ctx.stack);
        res.setOrganization(ctx.organization);
        const config = res.getConfigMap();
        for (const [k, v] of Object.entries(ctx.config)) config.set(k, v);
        res.setConfigsecretkeysList([...ctx.secretKeys]);
        res.setDryrun(ctx.dryRun);
        res.setParallel(ctx.parallel);
        res.setSupportedfeaturesList(FEATURES.map((f) => resproto.ResourceMonitorFeature[f]));
        cb(null, res);
      },
      registerResource: (call: Call<RegisterRequest>, cb: Callback<unknown>) => {
        if (d.canceled) {
          cb(unavailable("resource monitor shut down while sending resource registration"));
          return;
        }
        const req = call.request;
        d.register(goalOf(d, req, ctx)).then(
          (result) => {
            const res = new resproto.RegisterResourceResponse();
            res.setUrn(result.urn);
            res.setId(result.id);
            res.setObject(struct(result.outputs));
            if (result.failed) {
              if (!req.getSupportsresultreporting()) {
                cb({ code: grpc.status.INTERNAL, details: "resource registration failed" });
                return;
              }
              res.setResult(resproto.Result.FAIL);
            }
            cb(null, res);
          },
          (err: unknown) => cb(unavailable(err instanceof Error ? err.message : String(err))),
        );
      },
      registerResourceOutputs: (
        call: Call<InstanceType<typeof resproto.RegisterResourceOutputsRequest>>,
        cb: Callback<unknown>,
      ) => {
        d.registerOutputs(
          call.request.getUrn(),
          downgradeMap(toProps(call.request.getOutputs()) as PropertyMap),
        );
        cb(null, new Empty());
      },
      readResource: (
        call: Call<InstanceType<typeof resproto.ReadResourceRequest>>,
        cb: Callback<unknown>,
      ) => {
        const req = call.request;
        d.register({
          type: req.getType(),
          name: req.getName(),
          custom: true,
          parent: req.getParent(),
          inputs: downgradeMap(toProps(req.getProperties()) as PropertyMap),
          dependencies: req.getDependenciesList(),
          propertyDependencies: {},
          deleteBeforeReplace: undefined,
          additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
          aliases: [],
          readId: req.getId(),
          ...(req.getProvider() ? { provider: req.getProvider() } : {}),
        }).then(
          (result) => {
            if (result.failed) {
              cb({
                code: grpc.status.UNKNOWN,
                details: d.diagnostics.at(-1)?.message ?? "read failed",
              });
              return;
            }
            const res = new resproto.ReadResourceResponse();
            res.setUrn(result.urn);
            res.setProperties(struct(result.outputs));
            cb(null, res);
          },
          (err: unknown) => cb(unavailable(err instanceof Error ? err.message : String(err))),
        );
      },
      invoke: (
        call: Call<InstanceType<typeof resproto.ResourceInvokeRequest>>,
        cb: Callback<unknown>,
      ) => {
        const req = call.request;
        if (pluginPackageOf(req.getTok()) === undefined) {
          cb(unimplemented(`the provider function ${req.getTok()}`));
          return;
        }
        d.invoke(
          req.getTok(),
          downgradeMap(toProps(req.getArgs()) as PropertyMap),
          req.getProvider() || undefined,
        ).then(
          (result) => {
            const res = new resproto.ResourceInvokeResponse();
            res.setReturn(struct(result));
            cb(null, res);
          },
          (err: unknown) =>
            cb({
              code: grpc.status.UNKNOWN,
              details: err instanceof Error ? err.message : String(err),
            }),
        );
      },
      call: (_call: unknown, cb: Callback<unknown>) => cb(unimplemented("Call")),
      registerPackage: (_call: unknown, cb: Callback<unknown>) => {
        const res = new resproto.RegisterPackageResponse();
        res.setRef("local-engine-package");
        cb(null, res);
      },
      signalAndWaitForShutdown: (_call: unknown, cb: Callback<unknown>) => {
        void d.settled().then(() => cb(null, new Empty()));
      },
    });
    this.server.addService(enginerpc.EngineService, {
      log: (call: Call<InstanceType<typeof engineproto.LogRequest>>, cb: Callback<unknown>) => {
        const req = call.request;
        const diagnostic: Diagnostic = {
          severity: SEVERITY[req.getSeverity()] ?? "info",
          message: req.getMessage(),
        };
        if (req.getUrn()) diagnostic.urn = req.getUrn();
        if (diagnostic.severity === "error") d.failed = true;
        d.diagnose(diagnostic);
        cb(null, new Empty());
      },
      getRootResource: (_call: unknown, cb: Callback<unknown>) => {
        const res = new engineproto.GetRootResourceResponse();
        res.setUrn(this.rootResource);
        cb(null, res);
      },
      setRootResource: (
        call: Call<InstanceType<typeof engineproto.SetRootResourceRequest>>,
        cb: Callback<unknown>,
      ) => {
        this.rootResource = call.request.getUrn();
        cb(null, new engineproto.SetRootResourceResponse());
      },
      requirePulumiVersion: (_call: unknown, cb: Callback<unknown>) =>
        cb(null, new engineproto.RequirePulumiVersionResponse()),
    });
  }

  listen(): Promise<string> {
    return new Promise((ok, fail) => {
      this.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
        if (err) return fail(err);
        this.address = `127.0.0.1:${port}`;
        ok(this.address);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((ok) => this.server.tryShutdown(() => ok()));
  }
}
