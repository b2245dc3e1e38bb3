/**
 * The local engine: `pulumi preview | up | refresh | destroy` for one stack of a Pulumi project,
 * without the CLI. The program runs through the real Node language runtime entry
 * (`@pulumi/pulumi/cmd/run`) with the arguments and environment `pulumi-language-nodejs` gives
 * it; every custom resource goes to a real dynamic-provider host; the state persists between
 * runs in a `pulumi stack export` file. README.md beside this file lists every known deviation.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import {
  Deployment,
  type DeploymentContext,
  type Diagnostic,
  dependenciesOf,
  type ImportSpec,
  STACK_TYPE,
  type StepRecord,
} from "./deployment.ts";
import { type EngineEvent, EngineEventStream } from "./events.ts";
import { StackLock, StackLockedError } from "./lock.ts";
import { MonitorServer } from "./monitor.ts";
import {
  type PluginLaunch,
  PluginProviders,
  type ProjectPlugin,
  projectPluginsOf,
} from "./plugin-providers.ts";
import { childProcessEnv, eachLine, ProviderHost } from "./provider-host.ts";
import { type ResourceState, type Snapshot, StateStore, statePassphrase } from "./state.ts";
import { maskSecrets, type PropertyMap, stripSecretsMap } from "./values.ts";

const require = createRequire(import.meta.url);

/** Exit codes of the CLI since 3.227. */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_EXPECT_NO_CHANGES = 7;

export interface LocalEngineOptions {
  /** The directory holding Pulumi.yaml. */
  projectDir: string;
  stack?: string;
  organization?: string;
  /** Stack config by namespaced key (`cloudinfra:endpoint`). */
  config?: Record<string, string>;
  /** Secret stack config (`pulumi config set --secret`), by namespaced key. */
  secretConfig?: Record<string, string>;
  /** Where the stack's state lives between runs. */
  stateFile: string;
  /** The secrets passphrase of the stack. */
  passphrase?: string;
  /** `--parallel`: mutating steps at once; the CLI's default is 4 × CPUs. */
  parallel?: number;
  /** Environment of the program and the provider host; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
  /** The longest a program may run before it is killed (a bound for tests). */
  programTimeoutMs?: number;
}

export interface RunOptions {
  /** `--refresh`: refresh the state before `up` or `preview`. */
  refresh?: boolean;
  /** `--expect-no-changes`: exit 7 when a step would change something. */
  expectNoChanges?: boolean;
  /** `refresh --preview-only`: compute, change neither state nor cloud. */
  previewOnly?: boolean;
  /** `refresh --clear-pending-creates`. */
  clearPendingCreates?: boolean;
  /** `refresh --import-pending-creates URN ID ...`. */
  importPendingCreates?: Record<string, string>;
  /** `import`: the resources to import (`pulumi import <type> <name> <id>`). */
  imports?: readonly ImportSpec[];
  /** Told of each pending operation once the state records it, with ways to break the run. */
  onPendingOperation?: (type: string, urn: string, control: RunControl) => void;
  /** Told of each engine event as it happens (what `--event-log` writes and the display shows). */
  onEvent?: (event: EngineEvent) => void;
  /** `--debug`: debug diagnostics (a plugin's output, the SDK's log) go to the events too. */
  debug?: boolean;
  /** Given the run's controls once it has started (the CLI's Ctrl-C handler uses them). */
  onStart?: (control: RunControl) => void;
}

/** Ways a test breaks a run in progress. */
export interface RunControl {
  /**
   * The engine dies here, as a killed `pulumi up` would: program and provider host killed with
   * SIGKILL, nothing more written to the state.
   */
  interrupt(): void;
  /** Only the provider host dies (SIGKILL); the engine records the steps in flight as failed. */
  killProviderHost(): void;
  /**
   * The CLI's first Ctrl-C (`cancellationScope`, pkg/backend/cancellation_scope.go): no new step
   * starts (the program's next registrations get UNAVAILABLE, as the CLI's resource monitor
   * answers once canceled), the steps in flight finish and are saved, nothing is deleted, the
   * state is written and the lock released; the run ends failed (`RunResult.canceled`).
   */
  cancel(signal?: "SIGINT" | "SIGTERM"): void;
  /**
   * The CLI's second Ctrl-C: stop now. Program and providers are killed, the state keeps what
   * the steps done so far wrote (with the pending operations of those in flight), the lock goes.
   */
  terminate(signal?: "SIGINT" | "SIGTERM"): void;
}

export interface RunResult {
  operation: string;
  exitCode: number;
  /** Every step, in the order they started. */
  steps: StepRecord[];
  /** The steps that change something (what `--expect-no-changes` rejects). */
  changes: StepRecord[];
  /** How many steps of each kind succeeded, as the CLI's summary counts them. */
  summary: Record<string, number>;
  /** How many steps failed (the CLI's "N errored"). */
  errored: number;
  /** Ended by {@link RunControl.cancel} or {@link RunControl.terminate}. */
  canceled: boolean;
  diagnostics: Diagnostic[];
  /** Stack outputs (secrets in Pulumi's secret wrapper). */
  outputs: PropertyMap;
  programStdout: string;
  programStderr: string;
  hostStderr: string;
  /** Each provider plugin process of the run: where it was found, what was executed, its pid. */
  plugins: PluginLaunch[];
  /** What `preview --json` prints: Pulumi's preview digest. */
  digest(): PreviewDigest;
  /** The engine event stream: what `--event-log FILE` writes, and `up --json` prints. */
  events(): EngineEvent[];
}

export interface PreviewDigest {
  config: Record<string, string>;
  steps: {
    op: string;
    urn: string;
    provider?: string;
    oldState?: Record<string, unknown>;
    newState?: Record<string, unknown>;
    diffReasons?: string[];
    replaceReasons?: string[];
    detailedDiff?: Record<string, { kind: string; inputDiff: boolean }>;
  }[];
  diagnostics: { urn?: string; message: string; severity: string }[];
  duration: number;
  changeSummary: Record<string, number>;
}

interface Project {
  name: string;
  main: string;
  typescript: boolean;
  /** The runtime option `nodeargs`: Node's own arguments for the program's process. */
  nodeArgs: string[];
  /** `plugins.providers`: plugins used from a folder (paths absolute). */
  plugins: ProjectPlugin[];
}

function readProject(projectDir: string): Project {
  const { parse } = require("yaml") as typeof import("yaml");
  const doc = parse(readFileSync(join(projectDir, "Pulumi.yaml"), "utf8")) as {
    name: string;
    main?: string;
    runtime?: string | { name: string; options?: { typescript?: boolean; nodeargs?: string } };
    plugins?: unknown;
  };
  const options = typeof doc.runtime === "object" ? doc.runtime.options : undefined;
  return {
    name: doc.name,
    main: doc.main ?? ".",
    typescript: options?.typescript !== false,
    nodeArgs: splitArgs(options?.nodeargs ?? ""),
    plugins: projectPluginsOf(projectDir, doc),
  };
}

/**
 * `nodeargs` split into arguments as `pulumi-language-nodejs` splits it (shlex, POSIX rules):
 * whitespace separates, quotes group, a backslash escapes the next character outside single
 * quotes.
 */
function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quote === undefined && /\s/.test(c)) {
      if (current !== undefined) args.push(current);
      current = undefined;
    } else if (c === quote) {
      quote = undefined;
    } else if (quote === undefined && (c === "'" || c === '"')) {
      quote = c;
      current ??= "";
    } else if (c === "\\" && quote !== "'" && i + 1 < text.length) {
      i++;
      current = (current ?? "") + text.charAt(i);
    } else {
      current = (current ?? "") + c;
    }
  }
  if (quote !== undefined)
    throw new Error(`nodeargs: unclosed ${quote} in ${JSON.stringify(text)}`);
  if (current !== undefined) args.push(current);
  return args;
}

/**
 * Config keys as `config.ParseKey` reads them: `ns:name` (or the legacy `ns:config:name`) keeps its
 * namespace; a bare `name` is the project's, `<project>:name`, as `pulumi config set name v` sets it.
 */
export function namespacedConfig(
  project: string,
  config: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    const parts = key.split(":");
    const name =
      parts.length === 1
        ? `${project}:${key}`
        : parts.length === 3 && parts[1] === "config"
          ? `${parts[0]}:${parts[2]}`
          : key;
    out[name] = value;
  }
  return out;
}

function stateForJson(r: ResourceState | undefined): Record<string, unknown> | undefined {
  if (r === undefined) return undefined;
  const out: Record<string, unknown> = { ...r };
  if (r.inputs) out["inputs"] = maskSecrets(r.inputs);
  if (r.outputs) out["outputs"] = maskSecrets(r.outputs);
  return out;
}

export class LocalEngine {
  readonly project: Project;
  readonly store: StateStore;
  readonly stack: string;

  readonly options: LocalEngineOptions;
  /** Output streams numbered so far (program streams start past the providers'). */
  private streams = 100;

  constructor(options: LocalEngineOptions) {
    this.project = readProject(options.projectDir);
    const { config, secretConfig } = options;
    this.options = {
      ...options,
      ...(config ? { config: namespacedConfig(this.project.name, config) } : {}),
      ...(secretConfig ? { secretConfig: namespacedConfig(this.project.name, secretConfig) } : {}),
    };
    this.stack = options.stack ?? "dev";
    const endpoint =
      this.options.config?.["cloudinfra:endpoint"] ??
      (options.env ?? process.env)["CLOUDINFRA_ENDPOINT"];
    this.store = new StateStore(options.stateFile, statePassphrase(options.passphrase, endpoint));
  }

  get config(): Record<string, string> {
    return { ...this.options.config, ...this.options.secretConfig };
  }

  get secretKeys(): string[] {
    return Object.keys(this.options.secretConfig ?? {});
  }

  /** The stack's state as `pulumi stack export` prints it. */
  export() {
    return this.store.export();
  }

  /** The stack's resources with secrets decrypted (`pulumi stack export --show-secrets`). */
  resources(): ResourceState[] {
    return this.store.load().resources;
  }

  pendingOperations(): Snapshot["pendingOperations"] {
    return this.store.load().pendingOperations;
  }

  /** The stack's lock, beside the state file as the file backend keeps it beside its stacks. */
  stackLock(): StackLock {
    return new StackLock(
      dirname(resolve(this.options.stateFile)),
      this.options.organization ?? "organization",
      this.project.name,
      this.stack,
      this.cancelCommand(),
    );
  }

  /** `npm run local-engine -- cancel` with the options that find this stack from here. */
  cancelCommand(): string {
    const projectDir = resolve(this.options.projectDir);
    const stateFile = resolve(this.options.stateFile);
    const quote = (s: string) => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
    const args = ["npm run local-engine -- cancel"];
    if (projectDir !== process.cwd())
      args.push(`--cwd ${quote(relative(process.cwd(), projectDir) || ".")}`);
    if (this.stack !== "dev") args.push(`--stack ${quote(this.stack)}`);
    if (stateFile !== join(projectDir, ".pulumi-local", `${this.stack}.json`)) {
      const rel = relative(process.cwd(), stateFile);
      args.push(`--state ${quote(rel.startsWith("..") ? stateFile : rel)}`);
    }
    return args.join(" ");
  }

  /** `pulumi cancel`: deletes the stack's locks, those of killed runs included; returns them. */
  cancel() {
    return this.stackLock().clear();
  }

  private context(
    dryRun: boolean,
    legacyRefreshDiff: boolean,
    host: () => Promise<ProviderHost>,
    plugins: PluginProviders,
  ): DeploymentContext {
    return {
      plugins,
      project: this.project.name,
      stack: this.stack,
      dryRun,
      parallel: this.options.parallel ?? 4 * availableParallelism(),
      legacyRefreshDiff,
      config: this.config,
      secretKeys: this.secretKeys,
      store: this.store,
      host,
    };
  }

  preview(options: RunOptions = {}): Promise<RunResult> {
    return this.run("preview", true, options);
  }

  up(options: RunOptions = {}): Promise<RunResult> {
    return this.run("up", false, options);
  }

  refresh(options: RunOptions = {}): Promise<RunResult> {
    return this.run("refresh", options.previewOnly === true, options);
  }

  destroy(options: RunOptions = {}): Promise<RunResult> {
    return this.run("destroy", false, options);
  }

  /** `pulumi import <type> <name> <id>...`: adopt existing objects into the state, no program. */
  import(imports: readonly ImportSpec[], options: RunOptions = {}): Promise<RunResult> {
    return this.run("import", options.previewOnly === true, { ...options, imports });
  }

  /**
   * `pulumi state delete <urn>`: forget a resource without touching the object. Refused while
   * another resource depends on it, as the CLI refuses.
   */
  stateDelete(urn: string): void {
    // The CLI locks the stack for a state edit as for an update (diy/backend.go).
    const lock = this.stackLock();
    lock.acquire("state delete");
    try {
      this.forget(urn);
    } finally {
      lock.release();
    }
  }

  private forget(urn: string): void {
    const snapshot = this.store.load();
    const target = snapshot.resources.find((r) => r.urn === urn);
    if (target === undefined)
      throw new Error(`No such resource ${JSON.stringify(urn)} exists in the current state`);
    const dependents = snapshot.resources.filter(
      (r) => r.urn !== urn && dependenciesOf(r).includes(urn),
    );
    if (dependents.length > 0) {
      throw new Error(
        `${urn} can't be safely deleted because the following resources depend on it:\n${dependents.map((r) => `  * ${r.urn}`).join("\n")}`,
      );
    }
    this.store.save({ ...snapshot, resources: snapshot.resources.filter((r) => r !== target) });
    this.store.commit();
  }

  private async run(operation: string, dryRun: boolean, options: RunOptions): Promise<RunResult> {
    const started = Date.now();
    // The file backend locks an update, a refresh and a destroy, never a preview (diy/backend.go).
    const lock = dryRun ? undefined : this.stackLock();
    let refused: string | undefined;
    try {
      lock?.acquire(operation);
    } catch (err) {
      if (!(err instanceof StackLockedError)) throw err;
      refused = err.message;
    }
    const env = this.options.env ?? process.env;
    const legacy = ["1", "true"].includes(
      String(env["PULUMI_ENABLE_LEGACY_REFRESH_DIFF"]).toLowerCase(),
    );
    const events = new EngineEventStream(dryRun, options.debug === true, options.onEvent);
    events.prelude(this.config, this.secretKeys);
    // What no step owns (provider output, GetPluginPath's warnings, a refusal): reported as it
    // happens, listed first in the result.
    const runDiagnostics: Diagnostic[] = [];
    const report = (d: Diagnostic) => {
      runDiagnostics.push(d);
      events.diagnostic(d);
    };
    // The CLI numbers each plugin's stdout and stderr as a stream of its own.
    let streams = 0;
    const hostStream = ++streams;
    const pluginStream = ++streams;
    let host: ProviderHost | undefined;
    let hostStarting: Promise<ProviderHost> | undefined;
    const startHost = () => {
      hostStarting ??= ProviderHost.start({
        config: this.config,
        cwd: resolve(this.options.projectDir),
        project: this.project.name,
        env,
        // The dynamic-provider host's stderr (CLOUDINFRA_LOG=debug lines among it) is shown as
        // the CLI shows a dynamic provider's output: info#err diagnostics of the stack.
        onStderrLine: (message) => report({ severity: "info#err", message, streamID: hostStream }),
      }).then((h) => {
        host = h;
        return h;
      });
      return hostStarting;
    };
    const plugins = new PluginProviders({
      cwd: resolve(this.options.projectDir),
      project: this.project.name,
      env,
      projectPlugins: this.project.plugins,
      // plugin.go hides the output of a resource plugin that is not the dynamic provider: its
      // lines are debug diagnostics, shown with --debug.
      onStderrLine: (message) => report({ severity: "debug", message, streamID: pluginStream }),
      onWarning: (message) => report({ severity: "warning", message }),
    });
    const ctx = this.context(dryRun, legacy, startHost, plugins);
    ctx.events = events;
    let program: ChildProcess | undefined;
    const deployments: Deployment[] = [];
    let canceled = false;
    const interrupt = () => {
      canceled = true;
      for (const d of deployments) {
        d.dead = true;
        d.canceled = true;
      }
      program?.kill("SIGKILL");
      host?.kill();
      plugins.kill();
    };
    const control: RunControl = {
      interrupt,
      killProviderHost: () => host?.kill(),
      // The CLI's words (cancellation_scope.go), sent as its stdout events.
      cancel: (signal = "SIGINT") => {
        if (canceled) return;
        const sig = signal === "SIGINT" ? "^C" : "SIGTERM";
        const again = signal === "SIGINT" ? "press ^C again" : "send SIGTERM again";
        events.stdout(
          `${sig} received; cancelling. If you would like to terminate immediately, ${again}.\n` +
            (dryRun
              ? ""
              : "Note that terminating immediately may lead to orphaned resources and other inconsistencies.\n"),
        );
        canceled = true;
        for (const d of deployments) d.canceled = true;
      },
      terminate: (signal = "SIGINT") => {
        events.stdout(`${signal === "SIGINT" ? "^C" : "SIGTERM"} received; terminating`);
        events.stop();
        interrupt();
      },
    };
    /** A deployment of this run: it starts canceled when the run already is. */
    const deployment = (c: DeploymentContext, base: Snapshot) => {
      const d = new Deployment(c, base);
      d.canceled = canceled;
      deployments.push(d);
      return d;
    };
    if (options.onPendingOperation) {
      const listener = options.onPendingOperation;
      ctx.onPendingOperation = (type, urn) => listener(type, urn, control);
    }
    options.onStart?.(control);
    const steps: StepRecord[] = [];
    const diagnostics: Diagnostic[] = [];
    let outputs: PropertyMap = {};
    let failed = false;
    let programStdout = "";
    let programStderr = "";
    try {
      // Refused: nothing is read or written; the error is the run's only diagnostic.
      if (refused !== undefined) throw new Error(refused);
      let base = this.store.load();
      if (operation === "refresh" || options.refresh === true) {
        const refresh = deployment(ctx, base);
        refresh.diagnostics.length = 0;
        await refresh.refresh(options);
        steps.push(...refresh.steps);
        diagnostics.push(...refresh.diagnostics);
        failed ||= refresh.failed;
        if (!failed && !dryRun) refresh.saveRefreshed();
        base = refresh.refreshedSnapshot();
        if (operation === "refresh") {
          outputs = base.resources.find((r) => r.type === STACK_TYPE)?.outputs ?? {};
        }
      }
      if (!failed && operation === "import") {
        // As the CLI without --skip-preview: the import is previewed first (each Read, Check and
        // Diff), and a preview that fails writes nothing, so no resource of it is half-imported.
        const previewFirst = dryRun ? [] : [this.context(true, legacy, startHost, plugins)];
        for (const c of [...previewFirst, ctx]) {
          const d = deployment(c, base);
          await d.importExisting(options.imports ?? []);
          await d.settled();
          if (!c.dryRun && !d.failed) this.store.save(d.snapshot());
          if (c !== ctx && d.failed) {
            // The preview before the import sends no events of its own unless it is what failed.
            for (const step of d.steps) {
              events.stepStarted(step);
              events.stepEnded(step);
            }
            for (const diagnostic of d.diagnostics) events.diagnostic(diagnostic);
          }
          if (d.failed || c === ctx) {
            steps.push(...d.steps);
            diagnostics.push(...d.diagnostics);
            failed ||= d.failed;
            break;
          }
        }
      } else if (!failed && !canceled && operation === "destroy") {
        const d = deployment(ctx, base);
        await d.deleteLeftovers();
        steps.push(...d.steps);
        diagnostics.push(...d.diagnostics);
        failed ||= d.failed;
      } else if (!failed && !canceled && operation !== "refresh") {
        const d = deployment(ctx, base);
        const result = await this.runProgram(d, dryRun, (child) => {
          program = child;
        });
        programStdout = result.stdout;
        programStderr = result.stderr;
        await d.settled();
        // A canceled program fails on the registrations it was refused: that is no error of its own.
        if (result.code !== 0 && !d.failed && !canceled) {
          d.error(
            result.code === 32
              ? "the program reported an error (exit code 32)"
              : `Program exited with non-zero exit code: ${result.code}`,
          );
        }
        if (!d.failed && !canceled) await d.deleteLeftovers();
        d.finalizeStackOutputs(d.failed || canceled);
        if (!dryRun && !d.dead) this.store.save(d.snapshot());
        steps.push(...d.steps);
        diagnostics.push(...d.diagnostics);
        failed ||= d.failed;
        outputs = d.stackOutputs;
      }
    } catch (err) {
      failed = true;
      report({ severity: "error", message: err instanceof Error ? err.message : String(err) });
    } finally {
      const h = host ?? (hostStarting ? await hostStarting.catch(() => undefined) : undefined);
      await h?.close();
      await plugins.close();
      // GetPluginPath's warnings and the providers' output come before what the steps reported.
      diagnostics.unshift(...runDiagnostics);
      // A run that "died" leaves its journal, as a killed engine would (state.ts).
      if (refused === undefined && !deployments.some((d) => d.dead)) this.store.commit();
      // Here the engine's process is the caller's and lives on, so even a run that "died"
      // lets go of the lock; a killed `npm run local-engine` leaves it for `cancel`.
      lock?.release();
    }
    const changes = steps.filter((s) => !["same", "read", "refresh"].includes(s.op));
    let exitCode = failed || canceled ? EXIT_ERROR : EXIT_OK;
    if (exitCode === EXIT_OK && options.expectNoChanges === true && changes.length > 0) {
      exitCode = EXIT_EXPECT_NO_CHANGES;
    }
    // As the engine's `Ops`: a step counts once it succeeded; failed ones are counted apart. The
    // refresh steps of `up --refresh` are not logical steps (RefreshStep.Logical): only
    // `refresh` counts what its reads found.
    const summary: Record<string, number> = {};
    for (const s of steps) {
      if (s.error !== undefined || (s.refresh === true && operation !== "refresh")) continue;
      // The halves of a replacement are not logical steps either: the replace counts once; and a
      // default provider's step is internal (isDefaultProviderStep): never counted.
      if (s.op === "create-replacement" || s.op === "delete-replaced") continue;
      if (s.type.startsWith("pulumi:providers:") && s.urn.endsWith("::default")) continue;
      summary[s.op] = (summary[s.op] ?? 0) + 1;
    }
    const errored = steps.filter((s) => s.error !== undefined).length;
    const duration = Date.now() - started;
    events.end({ summary, failed: exitCode === EXIT_ERROR, durationMs: duration });
    const config = this.config;
    const secretKeys = this.secretKeys;
    return {
      operation,
      exitCode,
      steps,
      changes,
      summary,
      errored,
      canceled,
      diagnostics,
      outputs,
      programStdout,
      programStderr,
      hostStderr: (host?.stderr ?? "") + plugins.stderr,
      plugins: plugins.launches,
      events: () => events.events,
      digest: () => ({
        config: Object.fromEntries(
          Object.entries(config).map(([k, v]) => [k, secretKeys.includes(k) ? "[secret]" : v]),
        ),
        steps: steps
          .filter((s) => s.op !== "same" || s.type === STACK_TYPE || s.refresh === true)
          .map((s) => {
            // The dynamic-provider host answers Diff with neither `diffs` nor a detailed diff, so
            // the engine's step metadata carries none; a refresh step keeps the state it started
            // with (its JSON step is only rewritten when a detailed diff exists), except deletes.
            // A plugin's detailed diff rewrites it from its outputs event (display/json.go, the
            // ResourceOutputsEvent case): the read's op `update`, the state read, the fields.
            const detailed = s.detailedDiff && Object.keys(s.detailedDiff).length > 0;
            const isRefreshStep = s.refresh === true && s.op !== "delete" && !detailed;
            return {
              op: isRefreshStep ? "refresh" : s.op,
              urn: s.urn,
              ...((s.newState?.provider ?? s.oldState?.provider)
                ? { provider: s.newState?.provider ?? s.oldState?.provider ?? "" }
                : {}),
              ...(s.oldState ? { oldState: stateForJson(s.oldState) ?? {} } : {}),
              ...(isRefreshStep
                ? s.oldState
                  ? { newState: stateForJson(s.oldState) ?? {} }
                  : {}
                : s.newState
                  ? { newState: stateForJson(s.newState) ?? {} }
                  : {}),
              ...(s.replaceReasons.length > 0 ? { replaceReasons: s.replaceReasons } : {}),
              ...(detailed
                ? {
                    diffReasons: s.diffReasons,
                    detailedDiff: s.detailedDiff,
                  }
                : {}),
            };
          }),
        diagnostics: diagnostics.map((d) => ({
          ...(d.urn ? { urn: d.urn } : {}),
          message: d.message,
          severity: d.severity,
        })),
        duration: duration * 1_000_000,
        changeSummary: summary,
      }),
    };
  }

  /** `pulumi-language-nodejs`'s Run: node @pulumi/pulumi/cmd/run with the engine's arguments. */
  private async runProgram(
    d: Deployment,
    dryRun: boolean,
    started: (child: ChildProcess) => void,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const monitor = new MonitorServer(d, {
      project: this.project.name,
      stack: this.stack,
      organization: this.options.organization ?? "organization",
      dryRun,
      parallel: this.options.parallel ?? 4 * availableParallelism(),
      config: this.config,
      secretKeys: this.secretKeys,
    });
    const address = await monitor.listen();
    const root = resolve(this.options.projectDir);
    const runPath = dirname(require.resolve("@pulumi/pulumi/cmd/run/index.js", { paths: [root] }));
    const parallel = String(this.options.parallel ?? 4 * availableParallelism());
    const args = [
      runPath,
      "--monitor",
      address,
      "--engine",
      address,
      "--organization",
      this.options.organization ?? "organization",
      "--project",
      this.project.name,
      "--root-directory",
      root,
      "--stack",
      this.stack,
      "--pwd",
      root,
      ...(dryRun ? ["--dry-run"] : []),
      "--parallel",
      parallel,
      this.project.main,
    ];
    // constructConfig: `<namespace>:config:<name>` keys, as older SDKs expect them.
    const pulumiConfig: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.config)) {
      const i = k.indexOf(":");
      pulumiConfig[`${k.slice(0, i)}:config:${k.slice(i + 1)}`] = v;
    }
    const env: NodeJS.ProcessEnv = {
      ...childProcessEnv(this.options.env ?? process.env),
      PULUMI_CONFIG: JSON.stringify(pulumiConfig),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(this.secretKeys),
    };
    if (this.project.typescript) env["PULUMI_NODEJS_TYPESCRIPT"] = "true";
    const child = spawn(process.execPath, [...this.project.nodeArgs, ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    // The program's output is the language host's: the CLI shows each line as a diagnostic of
    // the stack, stdout as info, stderr as info#err, each stream numbered (plugin.go runtrace).
    const outStream = ++this.streams;
    const errStream = ++this.streams;
    eachLine(child.stdout, (message) =>
      d.diagnose({ severity: "info", message, streamID: outStream }),
    );
    eachLine(child.stderr, (message) =>
      d.diagnose({ severity: "info#err", message, streamID: errStream }),
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (b: Buffer) => {
      stdout += b.toString();
    });
    child.stderr?.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    started(child);
    const timeout = setTimeout(
      () => child.kill("SIGKILL"),
      this.options.programTimeoutMs ?? 300_000,
    );
    const code = await new Promise<number>((ok) => {
      child.once("exit", (c, signal) => ok(c ?? (signal ? 128 : 1)));
    });
    clearTimeout(timeout);
    await monitor.close();
    return { code, stdout, stderr };
  }
}

/** Inputs without secrets and the serialized provider: what a test compares. */
export function plainInputs(r: ResourceState): PropertyMap {
  const { __provider: _, ...rest } = stripSecretsMap(r.inputs ?? {});
  return rest;
}
