/**
 * One operation of the local engine: the engine's steps for the resources a program registers
 * (pkg/resource/deploy/step_generator.go, step.go, step_executor.go of pulumi/pulumi), refresh
 * (RefreshStep), and the deletes after the program (GenerateDeletes, ScheduleDeletes), with the
 * state checkpointed after each step. README.md beside this file lists where it differs.
 */
import { randomUUID } from "node:crypto";
import type { EngineEventStream } from "./events.ts";
import {
  defaultProviderInputs,
  type PluginProviders,
  PROVIDER_TYPE_PREFIX,
  pluginPackageOf,
  splitProviderRef,
} from "./plugin-providers.ts";
import type { HostError, PropertyDiff, ProviderHost } from "./provider-host.ts";
import type { PendingOperationType, ResourceState, Snapshot, StateStore } from "./state.ts";
import {
  annotateSecrets,
  applyAdditionalSecrets,
  changedKeys,
  containsUnknowns,
  deepEqual,
  makeSecret,
  type PropertyMap,
  stripSecretsMap,
  UNKNOWN,
  type Value,
} from "./values.ts";

export type StepOp =
  | "same"
  | "create"
  | "update"
  | "delete"
  | "replace"
  | "create-replacement"
  | "delete-replaced"
  | "read"
  | "refresh"
  | "import"
  | "discard";

/** One step, as the CLI shows it (and as `--json` prints it in `steps[]`). */
export interface StepRecord {
  op: StepOp;
  urn: string;
  type: string;
  oldState?: ResourceState;
  newState?: ResourceState;
  /** The properties that differ: from the provider's diff, else the inputs (outputs on refresh). */
  diffReasons: string[];
  /** The properties whose change forces the replacement (replace steps). */
  replaceReasons: string[];
  /** The step failed with this message. */
  error?: string;
  /** A refresh step (its `op` says what the read found: same, update or delete). */
  refresh?: true;
  /** The provider's detailed diff (plugin providers; the dynamic-provider host returns none). */
  detailedDiff?: Record<string, PropertyDiff>;
  /** What a create or an update aims at, before it has a new state: its start event's `new`. */
  goal?: ResourceState;
}

export interface Diagnostic {
  /** `info#err`: a line a program or a provider wrote on stderr (the CLI's Infoerr). */
  severity: "debug" | "info" | "info#err" | "warning" | "error";
  message: string;
  urn?: string;
  /** The output stream a line came from, as the CLI numbers each plugin's stdout and stderr. */
  streamID?: number;
}

export const STACK_TYPE = "pulumi:pulumi:Stack";
export const DEFAULT_PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";

export interface DeploymentContext {
  project: string;
  stack: string;
  dryRun: boolean;
  parallel: number;
  legacyRefreshDiff: boolean;
  /** Namespaced stack config (`cloudinfra:endpoint`) and which keys are secret. */
  config: Record<string, string>;
  secretKeys: readonly string[];
  store: StateStore;
  host: () => Promise<ProviderHost>;
  /** The plugin processes of providers other than the dynamic `pulumi-nodejs` one. */
  plugins?: PluginProviders;
  /** Told of every pending operation once it is in the state (for interruption tests). */
  onPendingOperation?: (type: PendingOperationType, urn: string) => void;
  /** Where each step's start and end and each diagnostic are sent as they happen. */
  events?: EngineEventStream;
}

/** The registration of one resource, downgraded to the engine's values. */
export interface Goal {
  type: string;
  name: string;
  custom: boolean;
  parent: string;
  inputs: PropertyMap;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  deleteBeforeReplace: boolean | undefined;
  additionalSecretOutputs: string[];
  aliases: string[];
  /** `X.get(name, id)`: the resource is read, not managed. */
  readId?: string;
  /** The `provider` option: an explicit provider's reference `urn::id`. */
  provider?: string;
  /** The `import` option: adopt the existing object with this id (ImportStep). */
  importId?: string;
  /** `pulumi import`: no program wrote inputs; the imported state takes those Read returned. */
  inputsFromRead?: true;
}

/** One resource of `pulumi import <type> <name> <id>` or of its `--file`. */
export interface ImportSpec {
  type: string;
  name: string;
  id: string;
  /** The URN of an explicit provider of the state (`--provider name=urn`, the file's `provider`). */
  provider?: string;
}

export interface RegisterResult {
  urn: string;
  id: string;
  outputs: PropertyMap;
  failed: boolean;
}

class Semaphore {
  private waiting: (() => void)[] = [];
  private free: number;
  constructor(free: number) {
    this.free = free;
  }
  async run<T>(f: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((ok) => this.waiting.push(ok));
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

function hostMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function makeUrn(stack: string, project: string, qualifiedType: string, name: string) {
  return `urn:pulumi:${stack}::${project}::${qualifiedType}::${name}`;
}

export function urnType(urn: string): string {
  return urn.split("::")[2] ?? "";
}

/** Every resource `r` depends on: dependencies, property dependencies, parent and provider. */
export function dependenciesOf(r: ResourceState): string[] {
  const deps = new Set(r.dependencies ?? []);
  for (const urns of Object.values(r.propertyDependencies ?? {})) for (const u of urns) deps.add(u);
  if (r.parent) deps.add(r.parent);
  if (r.provider) deps.add(r.provider.split("::").slice(0, -1).join("::"));
  return [...deps];
}

/** The registration of a component with no inputs (the stack, an import's root). */
export function componentGoal(type: string, name: string): Goal {
  return {
    type,
    name,
    custom: false,
    parent: "",
    inputs: {},
    dependencies: [],
    propertyDependencies: {},
    deleteBeforeReplace: undefined,
    additionalSecretOutputs: [],
    aliases: [],
  };
}

export class Deployment {
  readonly steps: StepRecord[] = [];
  readonly diagnostics: Diagnostic[] = [];
  stackOutputs: PropertyMap = {};
  /** The stack's RegisterResourceOutputs, kept for {@link finalizeStackOutputs}. */
  private registeredStackOutputs: PropertyMap | undefined;
  failed = false;
  /** Set once a step fails: the engine stops taking registrations (cancelDueToError). */
  canceled = false;

  /** The state the operation started from, by URN (entries marked `delete` included). */
  private readonly olds = new Map<string, ResourceState>();
  private readonly oldOrder: string[] = [];
  /** Old URNs a registration (or an alias of one) has claimed. */
  private readonly claimed = new Set<string>();
  /** New states in the order their steps completed. */
  private readonly news: ResourceState[] = [];
  /** Old states that stay in the state until deleted (replaced create-before-delete). */
  private readonly pendingDeletes: ResourceState[] = [];
  /** URNs deleted during the operation (delete-before-replace and its dependents). */
  private readonly deleted = new Set<string>();
  /** The properties that made each dependent of a delete-before-replace go too. */
  private readonly dependentReplaceKeys = new Map<string, string[]>();
  private pendingOperations: Snapshot["pendingOperations"];
  private readonly inherited: Snapshot["pendingOperations"];
  private readonly workers: Semaphore;
  /** The step generator is one goroutine: Check and Diff of registrations run one at a time. */
  private readonly generator = new Semaphore(1);
  private defaultProvider: ResourceState | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();

  private readonly ctx: DeploymentContext;

  constructor(ctx: DeploymentContext, base: Snapshot) {
    this.ctx = ctx;
    for (const r of base.resources) {
      if (r.delete) {
        // Left by a replacement whose delete failed: deleted after the program, like the others.
        this.pendingDeletes.push(r);
        continue;
      }
      this.olds.set(r.urn, r);
      this.oldOrder.push(r.urn);
    }
    this.inherited = base.pendingOperations;
    this.pendingOperations = [];
    this.workers = new Semaphore(ctx.parallel);
    if (base.pendingOperations.length > 0) {
      this.warn(
        `Attempting to deploy or update resources with ${base.pendingOperations.length} pending operations from previous deployment.\n` +
          base.pendingOperations
            .map((op) => `  * ${op.resource.urn}, interrupted while ${op.type}`)
            .join("\n") +
          "\nThese resources are in an unknown state because the Pulumi CLI was interrupted while waiting for changes to these resources to complete. " +
          "You should confirm whether or not the operations listed completed successfully by checking the state of the appropriate provider.\n\n" +
          "Once you have confirmed the status of the interrupted operations, you can repair your stack using `pulumi refresh` which will refresh the state from the provider you are using and clear the pending operations if there are any.\n\n" +
          "Note that `pulumi refresh` will need to be run interactively to clear pending CREATE operations.",
      );
    }
  }

  /** Reports a diagnostic: kept for the result and sent at once to the event stream. */
  diagnose(d: Diagnostic): void {
    this.diagnostics.push(d);
    this.ctx.events?.diagnostic(d);
  }

  warn(message: string, urn?: string): void {
    this.diagnose(
      urn === undefined ? { severity: "warning", message } : { severity: "warning", message, urn },
    );
  }

  error(message: string, urn?: string): void {
    this.failed = true;
    this.diagnose(
      urn === undefined ? { severity: "error", message } : { severity: "error", message, urn },
    );
  }

  get stackUrn(): string {
    return makeUrn(
      this.ctx.stack,
      this.ctx.project,
      STACK_TYPE,
      `${this.ctx.project}-${this.ctx.stack}`,
    );
  }

  /** The URN of a registration: children of a component carry its type chain (`parent$child`). */
  urnOf(type: string, name: string, parent: string): string {
    const parentType = parent && parent !== this.stackUrn ? urnType(parent) : "";
    return makeUrn(
      this.ctx.stack,
      this.ctx.project,
      parentType ? `${parentType}$${type}` : type,
      name,
    );
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  /** Resolves once no registration is in flight (SignalAndWaitForShutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** The current state: completed new states, then the old states no step has replaced yet. */
  snapshot(): Snapshot {
    const newUrns = new Set(this.news.map((r) => r.urn));
    // An old state stays until its step records the new one (an update in flight included).
    // An aliased resource's old state goes once the new one is recorded under its new URN.
    const untouched = this.oldOrder
      .filter((u) => !this.deleted.has(u) && !newUrns.has(u))
      .filter((u) => !newUrns.has(this.renamed.get(u) ?? ""))
      .map((u) => this.olds.get(u))
      .filter((r): r is ResourceState => r !== undefined);
    return {
      resources: [...this.news, ...this.pendingDeletes, ...untouched],
      pendingOperations: [...this.inherited, ...this.pendingOperations],
    };
  }

  private checkpoint(): void {
    if (!this.ctx.dryRun && !this.dead) this.ctx.store.save(this.snapshot());
  }

  /** Set when the engine "dies" (a test's interruption): nothing is written any more. */
  dead = false;

  /** Runs `f` as a step in flight: a pending operation in the state until it ends. */
  private async pending<T>(
    type: PendingOperationType,
    resource: ResourceState,
    f: () => Promise<T>,
  ) {
    if (this.ctx.dryRun) return f();
    const op = { type, resource };
    this.pendingOperations.push(op);
    this.checkpoint();
    this.ctx.onPendingOperation?.(type, resource.urn);
    try {
      return await f();
    } finally {
      this.pendingOperations = this.pendingOperations.filter((o) => o !== op);
    }
  }

  /** A step starts: kept, and its start sent to the event stream. */
  private record(step: StepRecord): void {
    this.steps.push(step);
    const open = this.openSteps.get(step.urn);
    if (open) open.push(step);
    else this.openSteps.set(step.urn, [step]);
    this.ctx.events?.stepStarted(step);
  }

  /** Steps started and not yet ended, by URN. */
  private readonly openSteps = new Map<string, StepRecord[]>();

  /** A step ends (done, or failed with its `error`): its end goes to the event stream. */
  private ended(step: StepRecord): void {
    const open = this.openSteps.get(step.urn);
    const i = open?.indexOf(step) ?? -1;
    if (open === undefined || i < 0) return;
    open.splice(i, 1);
    if (open.length === 0) this.openSteps.delete(step.urn);
    this.ctx.events?.stepEnded(step);
  }

  /** Every step of `urn` still open ends (a registration is over). */
  private endedAll(urn: string): void {
    for (const step of [...(this.openSteps.get(urn) ?? [])]) this.ended(step);
  }

  private now(): string {
    return new Date().toISOString();
  }

  private configInputs(): PropertyMap {
    const inputs: PropertyMap = {};
    for (const [k, v] of Object.entries(this.ctx.config)) {
      inputs[k] = this.ctx.secretKeys.includes(k) ? makeSecret(v) : v;
    }
    return inputs;
  }

  /** The default `pulumi-nodejs` provider, registered before the first custom resource. */
  private ensureDefaultProvider(): ResourceState {
    if (this.defaultProvider) return this.defaultProvider;
    const urn = makeUrn(this.ctx.stack, this.ctx.project, DEFAULT_PROVIDER_TYPE, "default");
    const old = this.olds.get(urn);
    const inputs = this.configInputs();
    const provider: ResourceState = {
      urn,
      custom: true,
      id: old?.id ?? randomUUID(),
      type: DEFAULT_PROVIDER_TYPE,
      inputs,
      outputs: inputs,
      created: old?.created ?? this.now(),
      modified: old && deepEqual(old.inputs, inputs) ? (old.modified ?? this.now()) : this.now(),
    };
    this.claimed.add(urn);
    this.news.push(provider);
    this.record({
      op: old
        ? deepEqual(stripSecretsMap(old.inputs ?? {}), stripSecretsMap(inputs))
          ? "same"
          : "update"
        : "create",
      urn,
      type: DEFAULT_PROVIDER_TYPE,
      ...(old ? { oldState: old } : {}),
      newState: provider,
      diffReasons: old ? changedKeys(old.inputs ?? {}, inputs) : [],
      replaceReasons: [],
    });
    this.endedAll(urn);
    this.defaultProvider = provider;
    this.checkpoint();
    return provider;
  }

  private providerRef(): string {
    const p = this.ensureDefaultProvider();
    return `${p.urn}::${p.id}`;
  }

  /** The provider process of a resource: the dynamic host, or its plugin provider's. */
  private async hostFor(r: { type: string; provider?: string | undefined }): Promise<ProviderHost> {
    const ref = r.provider;
    if (ref === undefined || urnType(splitProviderRef(ref).urn) === DEFAULT_PROVIDER_TYPE) {
      return this.ctx.host();
    }
    const providerUrn = splitProviderRef(ref).urn;
    const pkg = pluginPackageOf(urnType(providerUrn));
    if (pkg === undefined || this.ctx.plugins === undefined) {
      throw new Error(`${r.type}: no plugin can serve provider ${ref}`);
    }
    return this.ctx.plugins.configured(ref, pkg, () => {
      const state =
        this.news.find((s) => s.urn === providerUrn) ??
        this.olds.get(providerUrn) ??
        this.pendingDeletes.find((s) => s.urn === providerUrn);
      return state?.inputs ?? {};
    });
  }

  /** The provider reference of a registration: its `provider` option, else its package's default. */
  private providerRefFor(goal: Goal): Promise<string> | string {
    const pkg = pluginPackageOf(goal.type);
    if (pkg === undefined) return this.providerRef();
    if (goal.provider) return goal.provider;
    let ref = this.pluginDefaults.get(pkg);
    if (ref === undefined) {
      ref = this.defaultPluginProvider(pkg);
      this.pluginDefaults.set(pkg, ref);
    }
    return ref;
  }

  private readonly pluginDefaults = new Map<string, Promise<string>>();

  /**
   * The default provider of plugin package `pkg`, configured from the stack's `<pkg>:*` config
   * (registry.go: a default provider is a provider resource named `default` whose inputs are the
   * package's config).
   */
  private async defaultPluginProvider(pkg: string): Promise<string> {
    const type = `${PROVIDER_TYPE_PREFIX}${pkg}`;
    const urn = makeUrn(this.ctx.stack, this.ctx.project, type, "default");
    const goal: Goal = {
      type,
      name: "default",
      custom: true,
      parent: "",
      inputs: defaultProviderInputs(pkg, this.ctx.config, this.ctx.secretKeys),
      dependencies: [],
      propertyDependencies: {},
      deleteBeforeReplace: undefined,
      additionalSecretOutputs: [],
      aliases: [],
    };
    const old = this.findOld(urn, []);
    const base: ResourceState = { urn, custom: true, type, inputs: goal.inputs, dependencies: [] };
    const result = await this.providerResource(urn, goal, base, old);
    if (result.failed) throw new Error(`the default ${pkg} provider could not be configured`);
    return `${urn}::${result.id}`;
  }

  private isDefaultPluginProvider(r: ResourceState): boolean {
    return r.type.startsWith(PROVIDER_TYPE_PREFIX) && r.urn.endsWith("::default");
  }

  /**
   * ResourceMonitor.Invoke of a provider function (`cloudinfra:index:getPlan`): answered by the
   * provider the `provider` option names, else the package's default provider.
   */
  async invoke(
    token: string,
    args: PropertyMap,
    provider: string | undefined,
  ): Promise<PropertyMap> {
    const goal = { ...this.componentGoal(token, ""), ...(provider ? { provider } : {}) };
    const ref = await this.providerRefFor(goal);
    const host = await this.hostFor({ type: token, provider: ref });
    return (await host.invoke(token, host.wire(args))) as PropertyMap;
  }

  /**
   * providerChanged of step_generator.go: a resource whose provider reference changed is replaced
   * only when the NEW provider's DiffConfig, given the old provider's inputs, asks for it (the
   * default `pulumi-nodejs` provider of a dynamic resource included, which is how a dynamic
   * resource moves to a plugin provider in place; docs/native-provider.md).
   */
  private async providerChanged(old: ResourceState, next: ResourceState): Promise<boolean> {
    if (old.provider === next.provider) return false;
    if (!old.provider || !next.provider) return true;
    const oldUrn = splitProviderRef(old.provider).urn;
    const newUrn = splitProviderRef(next.provider).urn;
    const oldProvider = this.olds.get(oldUrn);
    const newProvider = this.news.find((r) => r.urn === newUrn);
    if (oldProvider === undefined || newProvider === undefined) return true;
    if (urnType(newUrn) === DEFAULT_PROVIDER_TYPE) {
      // The dynamic provider has no DiffConfig of its own: its config never replaces.
      return false;
    }
    const host = await this.hostFor(next);
    const diff = await this.generator.run(() =>
      host.diffConfig(newUrn, oldProvider.inputs ?? {}, newProvider.inputs ?? {}),
    );
    return diff.replaces.length > 0;
  }

  /**
   * A provider resource (`pulumi:providers:<pkg>`): its own plugin process, CheckConfig of the new
   * config, DiffConfig against the old one, then Configure. A config change updates the provider
   * in place (its id stays) unless DiffConfig asks for a replacement: then it gets a new id and
   * its resources are replaced as their provider changed.
   */
  private async providerResource(
    urn: string,
    goal: Goal,
    base: ResourceState,
    old: ResourceState | undefined,
  ): Promise<RegisterResult> {
    const pkg = pluginPackageOf(goal.type);
    if (pkg === undefined || this.ctx.plugins === undefined) {
      throw new Error(`${urn}: the local engine has no plugin for ${goal.type}`);
    }
    const plugins = this.ctx.plugins;
    const host = await plugins.start(pkg);
    const checked = await this.generator.run(() =>
      host.checkConfig(urn, old?.inputs ?? {}, goal.inputs),
    );
    if (checked.failures.length > 0) {
      const lines = checked.failures.map((f) => `  ${f.property}: ${f.reason}`).join("\n");
      throw new Error(`${urn} has check errors:\n${lines}`);
    }
    const inputs = annotateSecrets(checked.inputs as PropertyMap, goal.inputs);
    let op: StepOp = old ? "same" : "create";
    let detailedDiff: Record<string, PropertyDiff> | undefined;
    let replaceReasons: string[] = [];
    if (old) {
      const diff = await this.generator.run(() => host.diffConfig(urn, old.inputs ?? {}, inputs));
      if (diff.changes === "some") op = diff.replaces.length > 0 ? "replace" : "update";
      if (diff.detailedDiff && Object.keys(diff.detailedDiff).length > 0)
        detailedDiff = diff.detailedDiff;
      replaceReasons = diff.replaces;
    }
    await host.configurePlugin(inputs);
    const id = old && op !== "replace" ? (old.id ?? randomUUID()) : randomUUID();
    const next: ResourceState = {
      ...base,
      id,
      inputs,
      outputs: inputs,
      created: old && op !== "replace" ? (old.created ?? this.now()) : this.now(),
      modified: op === "same" ? (old?.modified ?? this.now()) : this.now(),
    };
    plugins.adopt(`${urn}::${id}`, host);
    this.news.push(next);
    if (op === "replace" && old) this.pendingDeletes.push({ ...old, delete: true });
    this.record({
      op,
      urn,
      type: goal.type,
      ...(old ? { oldState: old } : {}),
      newState: next,
      diffReasons: detailedDiff ? Object.keys(detailedDiff).sort() : [],
      replaceReasons,
      ...(detailedDiff ? { detailedDiff } : {}),
    });
    this.endedAll(urn);
    this.checkpoint();
    return { urn, id, outputs: next.outputs ?? {}, failed: false };
  }

  /**
   * The `import` option (ImportStep of step.go): Read with the id and neither inputs nor state,
   * Check of the program's inputs against what Read returned, then Diff; any difference fails
   * the import, as the CLI's "inputs to import do not match the existing resource".
   */
  private async importResource(urn: string, goal: Goal, base: ResourceState) {
    const id = goal.importId ?? "";
    const host = await this.hostFor(base);
    const read = await this.workers.run(() => host.importRead(urn, id));
    // ImportStep.Apply (step.go): nil outputs are a missing resource, nil inputs a provider that
    // cannot import; an empty id keeps the one asked for.
    if (read.properties === undefined) {
      throw new Error(`resource '${id}' does not exist (importing ${urn})`);
    }
    if (read.inputs === undefined) {
      throw new Error(
        `provider does not support importing resources; please try updating the '${urn.split("::")[2]?.split(":")[0]}' plugin (importing ${urn})`,
      );
    }
    const readInputs = read.inputs as PropertyMap;
    const news = goal.inputsFromRead ? readInputs : goal.inputs;
    const inputs = await this.check(urn, readInputs, news, base.provider);
    const imported: ResourceState = {
      ...base,
      id: read.id === "" ? id : read.id,
      inputs,
      outputs: applyAdditionalSecrets(read.properties as PropertyMap, goal.additionalSecretOutputs),
      created: this.now(),
      modified: this.now(),
    };
    const diff = await this.diff(
      { ...imported, inputs: annotateSecrets(readInputs, news) },
      urn,
      inputs,
    );
    const step: StepRecord = {
      op: "import",
      urn,
      type: goal.type,
      newState: imported,
      diffReasons: diff.changes === "some" ? diff.keys : [],
      replaceReasons: diff.replaces,
      ...(diff.detailedDiff ? { detailedDiff: diff.detailedDiff } : {}),
    };
    this.record(step);
    if (diff.changes === "some") {
      const fields = diff.keys.join(", ");
      throw new Error(
        `inputs to import do not match the existing resource; importing this resource will fail (differences: ${fields})`,
      );
    }
    if (!this.ctx.dryRun) {
      this.news.push(imported);
      this.checkpoint();
    }
    return { urn, id: read.id, outputs: imported.outputs ?? {}, failed: false };
  }

  /**
   * `pulumi import` without a program (one resource, or a `--file` of them, in one operation):
   * the stack resource is kept (or created), every old resource stays, and each spec is imported
   * under the stack with the inputs Read returned (the CLI then writes them as the program's
   * code). An explicit provider must be in the state (import.go's registerProviders takes its
   * id from there; creating one from the file's inputs is not done here).
   */
  async importExisting(specs: readonly ImportSpec[]): Promise<void> {
    const providers = new Map<string, string>();
    for (const spec of specs) {
      if (spec.provider === undefined || providers.has(spec.provider)) continue;
      const state = this.olds.get(spec.provider);
      if (state === undefined || state.delete) {
        this.error(
          `the provider ${spec.provider} of ${spec.name} is not in the stack's state: register it with \`up\` first`,
        );
        return;
      }
      providers.set(spec.provider, `${spec.provider}::${state.id ?? ""}`);
    }
    const stack = this.stackUrn;
    const oldStack = this.findOld(stack, []);
    if (oldStack) this.news.push(oldStack);
    else
      await this.register(this.componentGoal(STACK_TYPE, `${this.ctx.project}-${this.ctx.stack}`));
    // Kept ahead of the resources imported with them: the state lists a provider first.
    for (const urn of providers.keys()) {
      const state = this.findOld(urn, []);
      if (state) this.news.push(state);
    }
    for (const spec of specs) {
      const provider = spec.provider === undefined ? undefined : providers.get(spec.provider);
      const goal: Goal = {
        ...this.componentGoal(spec.type, spec.name),
        custom: true,
        parent: stack,
        importId: spec.id,
        inputsFromRead: true,
        ...(provider ? { provider } : {}),
      };
      const urn = this.urnOf(goal.type, goal.name, goal.parent);
      if (this.olds.has(urn)) {
        this.error(`resource ${urn} already exists in the stack: \`pulumi state delete\` it first`);
        return;
      }
      const result = await this.register(goal);
      if (result.failed) return;
    }
  }

  private componentGoal(type: string, name: string): Goal {
    return componentGoal(type, name);
  }

  private findOld(urn: string, aliases: string[]): ResourceState | undefined {
    for (const candidate of [urn, ...aliases]) {
      const old = this.olds.get(candidate);
      if (old && !old.delete && !this.claimed.has(candidate)) {
        this.claimed.add(candidate);
        if (candidate !== urn) this.renamed.set(candidate, urn);
        return old;
      }
    }
    return undefined;
  }

  /** Old URNs an alias matched, with the URN the resource has now. */
  private readonly renamed = new Map<string, string>();

  register(goal: Goal): Promise<RegisterResult> {
    const urn = this.urnOf(goal.type, goal.name, goal.parent);
    return this.track(this.registerNow(goal).finally(() => this.endedAll(urn)));
  }

  private async registerNow(goal: Goal): Promise<RegisterResult> {
    const urn = this.urnOf(goal.type, goal.name, goal.parent);
    if (this.canceled) throw new Error("the deployment was canceled after an earlier step failed");
    if (goal.readId !== undefined) return this.read(urn, goal);
    const old = this.findOld(urn, goal.aliases);
    const base: ResourceState = {
      urn,
      custom: goal.custom,
      type: goal.type,
      inputs: goal.inputs,
      ...(goal.parent ? { parent: goal.parent } : {}),
      dependencies: goal.dependencies,
      ...(Object.keys(goal.propertyDependencies).length > 0
        ? { propertyDependencies: goal.propertyDependencies }
        : {}),
      ...(goal.additionalSecretOutputs.length > 0
        ? { additionalSecretOutputs: goal.additionalSecretOutputs }
        : {}),
    };
    if (!goal.custom) return this.component(urn, base, old);
    try {
      if (goal.type.startsWith(PROVIDER_TYPE_PREFIX)) {
        return await this.providerResource(urn, goal, base, old);
      }
      base.provider = await this.providerRefFor(goal);
      if (goal.importId !== undefined && old === undefined) {
        return await this.importResource(urn, goal, base);
      }
      return await this.customResource(urn, goal, base, old);
    } catch (err) {
      this.failStep(urn, goal.type, hostMessage(err));
      return { urn, id: old?.id ?? "", outputs: old?.outputs ?? {}, failed: true };
    }
  }

  private failStep(urn: string, type: string, message: string): void {
    this.error(message, urn);
    this.canceled = true;
    const last = [...this.steps].reverse().find((s) => s.urn === urn);
    if (last && last.error === undefined && last.op !== "same") last.error = message;
    else
      this.record({ op: "same", urn, type, diffReasons: [], replaceReasons: [], error: message });
  }

  private component(urn: string, base: ResourceState, old: ResourceState | undefined) {
    const next: ResourceState = {
      ...base,
      outputs: old?.outputs ?? {},
      created: old?.created ?? this.now(),
      modified: old?.modified ?? this.now(),
    };
    const inputsChanged = old !== undefined && !deepEqual(old.inputs ?? {}, base.inputs ?? {});
    this.news.push(next);
    this.record({
      op: old ? (inputsChanged ? "update" : "same") : "create",
      urn,
      type: base.type,
      ...(old ? { oldState: old } : {}),
      newState: next,
      diffReasons: old ? changedKeys(old.inputs ?? {}, base.inputs ?? {}) : [],
      replaceReasons: [],
    });
    this.checkpoint();
    return Promise.resolve({ urn, id: "", outputs: {}, failed: false });
  }

  /** RegisterResourceOutputs: a component's (the stack's) outputs. */
  registerOutputs(urn: string, outputs: PropertyMap): void {
    if (urn === this.stackUrn) {
      // The stack's wait for the end of the run (finalizeStackOutputs).
      this.registeredStackOutputs = outputs;
      this.stackOutputs = outputs;
      return;
    }
    const state = this.news.find((r) => r.urn === urn);
    if (state) state.outputs = outputs;
    this.checkpoint();
  }

  /**
   * The stack's outputs once the run is over, as `deployment_executor.go` finalizes them: those
   * the program registered; after an error, the old ones with those registered written over them
   * (a missing output is not taken as deleted). Unregistered, the stack keeps its old outputs.
   */
  finalizeStackOutputs(errored: boolean): void {
    const state = this.news.find((r) => r.urn === this.stackUrn);
    if (state === undefined || this.registeredStackOutputs === undefined) return;
    // An output still unknown after an update (what a failed resource would have given) is not a
    // value: the state never holds Pulumi's unknown marker, so the old value (if any) stays.
    const registered = this.ctx.dryRun
      ? this.registeredStackOutputs
      : Object.fromEntries(
          Object.entries(this.registeredStackOutputs).filter(([, v]) => !containsUnknowns(v)),
        );
    state.outputs = errored ? { ...state.outputs, ...registered } : registered;
    this.stackOutputs = state.outputs;
    const step = this.steps.find((s) => s.urn === this.stackUrn && s.refresh !== true);
    if (step) this.ctx.events?.stepOutputs(step);
    this.checkpoint();
  }

  private async check(
    urn: string,
    olds: PropertyMap,
    news: PropertyMap,
    provider: string | undefined,
  ): Promise<PropertyMap> {
    const host = await this.hostFor({ type: urnType(urn), provider });
    const result = await this.generator.run(() =>
      host.check(urn, host.wire(olds), host.wire(news)),
    );
    if (result.failures.length > 0) {
      // A reason that starts with its property's path ("color: expected ...") is not prefixed
      // with it again.
      const lines = result.failures
        .map((f) =>
          /^[\w.[\]]+: /.exec(f.reason)?.[0].startsWith(f.property)
            ? `  ${f.reason}`
            : `  ${f.property}: ${f.reason}`,
        )
        .join("\n");
      throw new Error(`${urn} has check errors:\n${lines}`);
    }
    return annotateSecrets(result.inputs as PropertyMap, news);
  }

  /** The Diff of the provider that serves the resource now (`provider`, by default the old one). */
  private async diff(
    old: ResourceState,
    urn: string,
    news: PropertyMap,
    provider: string | undefined = old.provider,
  ) {
    const host = await this.hostFor({ type: urnType(urn), provider });
    const result = await this.generator.run(() =>
      host.diff(
        urn,
        old.id ?? "",
        host.wire(old.outputs ?? {}),
        host.wire(news),
        host.wire(old.inputs ?? {}),
      ),
    );
    // A provider's own list of changed properties wins over comparing the inputs.
    const keys = result.detailedDiff
      ? Object.keys(result.detailedDiff).sort()
      : changedKeys(old.inputs ?? {}, news);
    // diffResource: an unknown answer is settled by comparing the inputs.
    const changes =
      result.changes === "unknown" ? (keys.length > 0 ? "some" : "none") : result.changes;
    return { ...result, changes, keys };
  }

  private finishOutputs(outputs: PropertyMap, inputs: PropertyMap, goal: Goal): PropertyMap {
    return applyAdditionalSecrets(annotateSecrets(outputs, inputs), goal.additionalSecretOutputs);
  }

  private async customResource(
    urn: string,
    goal: Goal,
    base: ResourceState,
    old: ResourceState | undefined,
  ): Promise<RegisterResult> {
    const inputs = { ...goal.inputs };
    const recreating = this.deleted.has(urn);
    if (!old && recreating) {
      const gone = this.olds.get(urn);
      if (gone) {
        // Deleted earlier in this operation as a dependent of a delete-before-replace.
        base.inputs = await this.check(urn, {}, inputs, base.provider);
        const keys = this.dependentReplaceKeys.get(urn) ?? [];
        this.record({
          op: "replace",
          urn,
          type: goal.type,
          oldState: gone,
          newState: base,
          diffReasons: keys,
          replaceReasons: keys,
        });
        return this.createResource(urn, goal, base, gone, "create-replacement", keys);
      }
    }
    if (!old) {
      base.inputs = await this.check(urn, {}, inputs, base.provider);
      return this.createResource(urn, goal, base, undefined, "create");
    }
    if (await this.providerChanged(old, base)) {
      base.inputs = await this.check(urn, {}, inputs, base.provider);
      const dbr = goal.deleteBeforeReplace ?? false;
      return this.replace(urn, goal, base, old, { replaces: ["provider"], keys: [] }, dbr);
    }
    base.inputs = await this.check(urn, old.inputs ?? {}, inputs, base.provider);
    const diff = await this.diff(old, urn, base.inputs, base.provider);
    const hasInitErrors = (old.initErrors ?? []).length > 0;
    if (diff.changes === "some" && diff.replaces.length > 0) {
      base.inputs = await this.check(urn, {}, inputs, base.provider);
      const dbr = goal.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      return this.replace(urn, goal, base, old, diff, dbr);
    }
    if (diff.changes === "some" || hasInitErrors)
      return this.update(urn, goal, base, old, diff.keys, diff.detailedDiff);
    const same: ResourceState = {
      ...base,
      id: old.id ?? "",
      outputs: applyAdditionalSecrets(old.outputs ?? {}, goal.additionalSecretOutputs),
      ...(old.created ? { created: old.created } : {}),
      ...(old.modified ? { modified: old.modified } : {}),
    };
    this.news.push(same);
    this.record({
      op: "same",
      urn,
      type: goal.type,
      oldState: old,
      newState: same,
      diffReasons: [],
      replaceReasons: [],
    });
    return { urn, id: same.id ?? "", outputs: same.outputs ?? {}, failed: false };
  }

  private async createResource(
    urn: string,
    goal: Goal,
    base: ResourceState,
    replacing: ResourceState | undefined,
    op: "create" | "create-replacement",
    replaceReasons: string[] = [],
  ): Promise<RegisterResult> {
    const inputs = base.inputs ?? {};
    const step: StepRecord = {
      op,
      urn,
      type: goal.type,
      goal: base,
      ...(replacing ? { oldState: replacing } : {}),
      diffReasons: replacing ? changedKeys(replacing.inputs ?? {}, inputs) : [],
      replaceReasons,
    };
    this.record(step);
    const host = await this.hostFor(base);
    if (this.ctx.dryRun) {
      // A provider without preview support answers a preview Create with its inputs.
      const outputs = host.supportsPreview
        ? ((await host.create(urn, host.wire(inputs), true)).properties as PropertyMap)
        : inputs;
      step.newState = { ...base, outputs };
      return { urn, id: "", outputs, failed: false };
    }
    const created = await this.pending("creating", base, () =>
      this.workers.run(() => host.create(urn, host.wire(inputs))),
    ).catch((err: HostError) => {
      if (err.initFailed?.id) {
        // A partial failure: the resource exists; the state keeps it with its init errors.
        const partial: ResourceState = {
          ...base,
          id: err.initFailed.id,
          outputs: this.finishOutputs(err.initFailed.properties as PropertyMap, inputs, goal),
          initErrors: err.initFailed.reasons,
          created: this.now(),
          modified: this.now(),
        };
        this.news.push(partial);
        step.newState = partial;
        this.checkpoint();
      }
      throw err;
    });
    const next: ResourceState = {
      ...base,
      id: created.id,
      outputs: this.finishOutputs(created.properties as PropertyMap, inputs, goal),
      created: this.now(),
      modified: this.now(),
    };
    this.news.push(next);
    step.newState = next;
    if (replacing && op === "create-replacement" && !this.deleted.has(urn)) {
      this.pendingDeletes.push({ ...replacing, delete: true });
    }
    this.deleted.delete(urn);
    this.checkpoint();
    return { urn, id: created.id, outputs: next.outputs ?? {}, failed: false };
  }

  /**
   * calculateDependentReplacements: the old resources that depend on `root` and that a provider
   * Diff, with the inputs that come from replaced resources unknown, says must be replaced too.
   */
  private async dependentReplacements(root: ResourceState): Promise<ResourceState[]> {
    const replaceSet = new Set([root.urn]);
    const toReplace: ResourceState[] = [];
    const registered = new Set([...this.news.map((r) => r.urn), ...this.claimed]);
    for (const u of this.oldOrder) {
      const r = this.olds.get(u);
      if (!r || u === root.urn || registered.has(u) || !r.custom || r.external || r.delete)
        continue;
      if (!dependenciesOf(r).some((d) => replaceSet.has(d))) continue;
      let depends = false;
      const inputsForDiff: PropertyMap = {};
      for (const [k, v] of Object.entries(r.inputs ?? {})) {
        const unknown = (r.propertyDependencies?.[k] ?? []).some((d) => replaceSet.has(d));
        if (unknown) depends = true;
        inputsForDiff[k] = unknown ? UNKNOWN : v;
      }
      if (!depends) continue;
      const host = await this.hostFor(r);
      const diff = await host.diff(
        r.urn,
        r.id ?? "",
        host.wire(r.outputs ?? {}),
        host.wire(inputsForDiff),
        host.wire(r.inputs ?? {}),
      );
      if (diff.replaces.length > 0) {
        replaceSet.add(r.urn);
        toReplace.push(r);
        this.dependentReplaceKeys.set(r.urn, diff.replaces);
      }
    }
    return toReplace;
  }

  /**
   * A replacement: create-before-delete (the old is deleted after the program), or, when
   * `deleteFirst`, the old and the dependents that must go with it are deleted before the create.
   */
  private async replace(
    urn: string,
    goal: Goal,
    base: ResourceState,
    old: ResourceState,
    diff: { replaces: string[]; keys: string[]; detailedDiff?: Record<string, PropertyDiff> },
    deleteFirst: boolean,
  ): Promise<RegisterResult> {
    if (deleteFirst) {
      const dependents = await this.dependentReplacements(old);
      for (const dependent of [...dependents].reverse()) {
        if (this.deleted.has(dependent.urn)) continue;
        await this.deleteResource(dependent, "delete-replaced");
      }
      await this.deleteResource(old, "delete-replaced");
    }
    this.record({
      op: "replace",
      urn,
      type: goal.type,
      oldState: old,
      newState: base,
      diffReasons: diff.keys,
      replaceReasons: diff.replaces,
      ...(diff.detailedDiff ? { detailedDiff: diff.detailedDiff } : {}),
    });
    return this.createResource(urn, goal, base, old, "create-replacement", diff.replaces);
  }

  private async update(
    urn: string,
    goal: Goal,
    base: ResourceState,
    old: ResourceState,
    keys: string[],
    detailedDiff?: Record<string, PropertyDiff>,
  ): Promise<RegisterResult> {
    const inputs = base.inputs ?? {};
    const step: StepRecord = {
      op: "update",
      urn,
      type: goal.type,
      oldState: old,
      goal: { ...base, id: old.id ?? "", outputs: old.outputs ?? {} },
      diffReasons: keys,
      replaceReasons: [],
      ...(detailedDiff ? { detailedDiff } : {}),
    };
    this.record(step);
    const host = await this.hostFor(base);
    if (this.ctx.dryRun) {
      const outputs = host.supportsPreview
        ? ((
            await host.update(
              urn,
              old.id ?? "",
              host.wire(old.outputs ?? {}),
              host.wire(inputs),
              true,
            )
          ).properties as PropertyMap)
        : inputs;
      step.newState = { ...base, id: old.id ?? "", outputs };
      return { urn, id: old.id ?? "", outputs, failed: false };
    }
    const updated = await this.pending("updating", old, () =>
      this.workers.run(() =>
        host.update(urn, old.id ?? "", host.wire(old.outputs ?? {}), host.wire(inputs)),
      ),
    );
    const next: ResourceState = {
      ...base,
      id: old.id ?? "",
      outputs: this.finishOutputs(updated.properties as PropertyMap, inputs, goal),
      ...(old.created ? { created: old.created } : {}),
      modified: this.now(),
    };
    this.news.push(next);
    step.newState = next;
    this.checkpoint();
    return { urn, id: next.id ?? "", outputs: next.outputs ?? {}, failed: false };
  }

  /**
   * `X.get(name, id)` (ReadStep): Read with the id, the registration's inputs sent as both inputs
   * and state (set even when empty, where an import sets neither); kept as an external resource
   * with those inputs. An id unknown in preview reads nothing.
   */
  private async read(urn: string, goal: Goal): Promise<RegisterResult> {
    const providerRef = await this.providerRefFor(goal);
    const old = this.findOld(urn, goal.aliases);
    if (goal.readId === UNKNOWN) {
      this.record({ op: "read", urn, type: goal.type, diffReasons: [], replaceReasons: [] });
      return { urn, id: UNKNOWN, outputs: {}, failed: false };
    }
    try {
      const host = await this.hostFor({ type: goal.type, provider: providerRef });
      const answer = await this.workers.run(() =>
        host.read(urn, goal.readId ?? "", host.wire(goal.inputs), host.wire(goal.inputs)),
      );
      if (answer.id === "")
        throw new Error(`reading resource ${urn}: resource '${goal.readId}' does not exist`);
      const next: ResourceState = {
        urn,
        custom: true,
        id: answer.id,
        type: goal.type,
        // ReadStep.Apply keeps the registration's inputs: the inputs a Read returns are not used.
        inputs: goal.inputs,
        outputs: applyAdditionalSecrets(
          answer.properties as PropertyMap,
          goal.additionalSecretOutputs,
        ),
        ...(goal.parent ? { parent: goal.parent } : {}),
        external: true,
        dependencies: goal.dependencies,
        provider: providerRef,
      };
      this.news.push(next);
      this.record({
        op: "read",
        urn,
        type: goal.type,
        ...(old ? { oldState: old } : {}),
        newState: next,
        diffReasons: [],
        replaceReasons: [],
      });
      this.checkpoint();
      return { urn, id: answer.id, outputs: next.outputs ?? {}, failed: false };
    } catch (err) {
      this.failStep(urn, goal.type, hostMessage(err));
      return { urn, id: "", outputs: {}, failed: true };
    }
  }

  private async deleteResource(r: ResourceState, op: "delete" | "delete-replaced"): Promise<void> {
    const step: StepRecord = {
      op,
      urn: r.urn,
      type: r.type,
      oldState: r,
      diffReasons: [],
      replaceReasons: [],
    };
    this.record(step);
    if (!this.ctx.dryRun && r.custom && !r.external && !r.type.startsWith(PROVIDER_TYPE_PREFIX)) {
      const host = await this.hostFor(r).catch((err: unknown) => {
        step.error = hostMessage(err);
        this.ended(step);
        throw err;
      });
      await this.pending("deleting", r, () =>
        this.workers.run(() => host.delete(r.urn, r.id ?? "", host.wire(r.outputs ?? {}))),
      ).catch((err: unknown) => {
        step.error = hostMessage(err);
        this.ended(step);
        throw err;
      });
    }
    this.ended(step);
    this.deleted.add(r.urn);
    const i = this.pendingDeletes.indexOf(r);
    if (i >= 0) this.pendingDeletes.splice(i, 1);
    const j = this.news.indexOf(r);
    if (j >= 0) this.news.splice(j, 1);
    this.checkpoint();
  }

  /**
   * After the program: delete what it no longer registers and what replacements left behind, in
   * reverse dependency order, each as soon as nothing left depends on it.
   */
  async deleteLeftovers(): Promise<void> {
    if (this.failed) return;
    const newUrns = new Set(this.news.map((r) => r.urn));
    const leftovers = [
      ...this.pendingDeletes,
      ...this.oldOrder
        .filter((u) => !this.claimed.has(u) && !this.deleted.has(u) && !newUrns.has(u))
        .map((u) => this.olds.get(u))
        .filter((r): r is ResourceState => r !== undefined),
    ];
    // A default provider goes only when no resource that needs it stays.
    const leaving = new Set(leftovers);
    const stays = this.snapshot().resources.filter((r) => !leaving.has(r));
    const remaining = new Set(
      leftovers.filter(
        (r) =>
          !(r.type === DEFAULT_PROVIDER_TYPE || this.isDefaultPluginProvider(r)) ||
          !stays.some((s) => s.provider?.startsWith(`${r.urn}::`)),
      ),
    );
    // How many resources still to delete depend on each URN: a wave is those nobody waits for.
    const dependents = new Map<string, number>();
    const count = (r: ResourceState, by: number) => {
      for (const d of dependenciesOf(r))
        if (d !== r.urn) dependents.set(d, (dependents.get(d) ?? 0) + by);
    };
    for (const r of remaining) count(r, 1);
    while (remaining.size > 0 && !this.failed) {
      const wave = [...remaining].filter((r) => (dependents.get(r.urn) ?? 0) === 0);
      if (wave.length === 0) {
        this.error(
          `cycle among resources to delete: ${[...remaining].map((r) => r.urn).join(", ")}`,
        );
        return;
      }
      for (const r of wave) {
        remaining.delete(r);
        count(r, -1);
      }
      const results = await Promise.allSettled(
        wave.map(async (r) => {
          if (r.external) {
            const discard: StepRecord = {
              op: "discard",
              urn: r.urn,
              type: r.type,
              oldState: r,
              diffReasons: [],
              replaceReasons: [],
            };
            this.record(discard);
            this.ended(discard);
            this.deleted.add(r.urn);
            return;
          }
          await this.deleteResource(r, r.delete ? "delete-replaced" : "delete");
        }),
      );
      for (const [i, result] of results.entries()) {
        if (result.status === "rejected") this.error(hostMessage(result.reason), wave[i]?.urn);
      }
    }
    this.checkpoint();
  }

  /**
   * RefreshStep for every custom resource of the base state: Read with the old id, inputs and
   * outputs; no id removes it; otherwise its diff (the provider's Diff run in reverse, or the
   * outputs compared under the legacy refresh diff) decides whether it shows as a change.
   */
  async refresh(options: {
    clearPendingCreates?: boolean;
    importPendingCreates?: Record<string, string>;
  }) {
    const imported = options.importPendingCreates ?? {};
    const keptPending = this.inherited.filter((op) => {
      if (op.type !== "creating") return false;
      if (imported[op.resource.urn] !== undefined) return false;
      return options.clearPendingCreates !== true;
    });
    for (const op of this.inherited) {
      const id = imported[op.resource.urn];
      if (op.type === "creating" && id !== undefined) {
        const r: ResourceState = { ...op.resource, id, outputs: op.resource.outputs ?? {} };
        this.olds.set(r.urn, r);
        this.oldOrder.push(r.urn);
      }
    }
    this.inherited.length = 0;
    this.inherited.push(...keptPending);
    const gone = new Set<string>();
    await Promise.all(
      this.oldOrder.map(async (u) => {
        const old = this.olds.get(u);
        if (old === undefined || old.delete) return;
        if (!old.custom || old.type.startsWith(PROVIDER_TYPE_PREFIX)) {
          // Components, providers and the stack never change with a refresh: their step keeps
          // the state it started from (RefreshStep.Apply), and shows in the events and digest.
          const kept: StepRecord = {
            op: "same",
            refresh: true,
            urn: u,
            type: old.type,
            oldState: old,
            newState: old,
            diffReasons: [],
            replaceReasons: [],
          };
          this.record(kept);
          this.ended(kept);
          return;
        }
        const step: StepRecord = {
          op: "refresh",
          refresh: true,
          urn: u,
          type: old.type,
          oldState: old,
          diffReasons: [],
          replaceReasons: [],
        };
        this.record(step);
        try {
          const host = await this.hostFor(old);
          const answer = await this.workers.run(() =>
            host.read(u, old.id ?? "", host.wire(old.outputs ?? {}), host.wire(old.inputs ?? {})),
          );
          if (answer.id === "") {
            step.op = "delete";
            gone.add(u);
            return;
          }
          const outputs = applyAdditionalSecrets(
            annotateSecrets(answer.properties as PropertyMap, old.outputs ?? {}),
            old.additionalSecretOutputs ?? [],
          );
          const inputs = answer.inputs
            ? annotateSecrets(answer.inputs as PropertyMap, old.inputs ?? {})
            : (old.inputs ?? {});
          const next: ResourceState = { ...old, id: answer.id, inputs, outputs };
          let changed: boolean;
          if (this.ctx.legacyRefreshDiff || old.external) {
            changed = !deepEqual(old.outputs ?? {}, outputs);
            step.diffReasons = changedKeys(old.outputs ?? {}, outputs);
          } else {
            const diff = await this.generator.run(() =>
              host.diff(
                u,
                next.id ?? "",
                host.wire(outputs),
                host.wire(old.inputs ?? {}),
                host.wire(inputs),
              ),
            );
            const keys = changedKeys(old.inputs ?? {}, inputs);
            changed = diff.changes === "unknown" ? keys.length > 0 : diff.changes === "some";
            step.diffReasons = keys.length > 0 ? keys : changedKeys(old.outputs ?? {}, outputs);
            if (diff.detailedDiff && changed) {
              // The Diff ran in reverse (refreshed state against the program's inputs): what it
              // calls added was deleted outside Pulumi, and the other way round (RefreshStep).
              step.detailedDiff = invertDetailedDiff(diff.detailedDiff);
              step.diffReasons = Object.keys(diff.detailedDiff).sort();
            }
          }
          if (
            changed ||
            !deepEqual(old.outputs ?? {}, outputs) ||
            !deepEqual(old.inputs ?? {}, inputs)
          ) {
            next.modified = this.now();
          }
          step.newState = next;
          step.op = changed ? "update" : "same";
          this.olds.set(u, next);
        } catch (err) {
          step.error = hostMessage(err);
          this.error(step.error, u);
        } finally {
          this.ended(step);
        }
      }),
    );
    for (const u of gone) {
      this.olds.delete(u);
      for (const r of this.olds.values()) {
        if (r.dependencies) r.dependencies = r.dependencies.filter((d) => d !== u);
        if (r.propertyDependencies) {
          // A new object, not changed in place: the state store reuses what it serialized of a
          // resource while its fields are the same objects.
          r.propertyDependencies = Object.fromEntries(
            Object.entries(r.propertyDependencies).map(([k, v]) => [k, v.filter((d) => d !== u)]),
          );
        }
      }
    }
    this.oldOrder.splice(0, this.oldOrder.length, ...this.oldOrder.filter((u) => !gone.has(u)));
  }

  /** The base state after a refresh, for an operation that follows it. */
  refreshedSnapshot(): Snapshot {
    return {
      resources: this.oldOrder
        .map((u) => this.olds.get(u))
        .filter((r): r is ResourceState => r !== undefined),
      pendingOperations: [...this.inherited],
    };
  }

  saveRefreshed(): void {
    if (!this.ctx.dryRun) this.ctx.store.save(this.refreshedSnapshot());
  }

  /** Steps that change something (what `--expect-no-changes` counts). */
  changes(): StepRecord[] {
    return this.steps.filter((s) => !["same", "read", "refresh"].includes(s.op));
  }
}

/** A detailed diff seen from the other side: additions become deletions and the reverse. */
export function invertDetailedDiff(
  diff: Record<string, PropertyDiff>,
): Record<string, PropertyDiff> {
  const swap: Record<string, string> = {
    add: "delete",
    delete: "add",
    "add-replace": "delete-replace",
    "delete-replace": "add-replace",
  };
  return Object.fromEntries(
    Object.entries(diff).map(([k, d]) => [k, { ...d, kind: swap[d.kind] ?? d.kind }]),
  );
}

/** Values in a RegisterResource answer: in preview, what is unknown stays unknown. */
export function hasUnknowns(m: PropertyMap): boolean {
  return Object.values(m).some((v: Value) => containsUnknowns(v));
}
