/**
 * Resource provider plugins (packages other than the dynamic `pulumi-nodejs`), as the CLI runs
 * them: one plugin process per provider resource, default or explicit (pkg/resource/deploy/
 * providers/registry.go loads a plugin for each), found as `GetPluginPath` finds it
 * (sdk/go/common/workspace/plugins.go; `findPlugin` below) and started as `ExecPlugin` starts it
 * (sdk/go/common/resource/plugin/plugin.go): an executable file is run directly with the engine
 * address as its argument; a folder holding `PulumiPlugin.yaml` is run as the Node language host
 * runs a plugin written in Node (`@pulumi/pulumi/cmd/run-plugin <folder>`). Either prints its port
 * first. A provider resource is checked (CheckConfig), diffed against its old config
 * (DiffConfig) and configured (Configure) on its own process.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { require } from "./proto.ts";
import { ProviderHost } from "./provider-host.ts";
import { makeSecret, type PropertyMap } from "./values.ts";

export const PROVIDER_TYPE_PREFIX = "pulumi:providers:";

/** The package of a resource type served by a plugin (`cloudinfra:index:Tag` → `cloudinfra`). */
export function pluginPackageOf(type: string): string | undefined {
  if (type.startsWith(PROVIDER_TYPE_PREFIX)) return type.slice(PROVIDER_TYPE_PREFIX.length);
  const pkg = type.split(":")[0] ?? "";
  return pkg === "" || pkg === "pulumi" || pkg === "pulumi-nodejs" ? undefined : pkg;
}

/** A provider reference `urn::id` split in two. */
export function splitProviderRef(ref: string): { urn: string; id: string } {
  const i = ref.lastIndexOf("::");
  return { urn: ref.slice(0, i), id: ref.slice(i + 2) };
}

/**
 * The folder of package `pkg`'s plugin as a project finds it: `pulumi-<pkg>`'s npm package, its
 * `plugin/` folder with `PulumiPlugin.yaml` (what `plugins.providers[].path` in Pulumi.yaml or
 * `pulumi package add` would point the CLI at).
 */
export function pluginFolder(projectDir: string, pkg: string): string {
  const manifest = require.resolve(`pulumi-${pkg}/package.json`, { paths: [projectDir] });
  const folder = join(dirname(manifest), "plugin");
  if (!existsSync(join(folder, "PulumiPlugin.yaml"))) {
    throw new Error(`no provider plugin for package ${pkg}: ${folder} has no PulumiPlugin.yaml`);
  }
  return folder;
}

/** A `plugins.providers` entry of Pulumi.yaml: a plugin used from a folder of this machine. */
export interface ProjectPlugin {
  name: string;
  /** The folder, absolute (Pulumi.yaml's path resolved against the project directory). */
  path: string;
}

/** How a plugin was found and run: what `RunResult.plugins` reports for each process. */
export interface PluginLaunch {
  pkg: string;
  /** `project` (Pulumi.yaml `plugins.providers`), `ambient` (`$PATH`) or `package` (npm). */
  source: "project" | "ambient" | "package";
  /** The file executed and its arguments, as spawned. */
  file: string;
  args: string[];
  /** The process that printed the port and served the calls. */
  pid: number | undefined;
}

/** What `findPlugin` chose: a file to execute directly, or a folder for `run-plugin`. */
export interface FoundPlugin {
  source: PluginLaunch["source"];
  executable?: string;
  folder?: string;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `exec.LookPath(name)`: the first executable file `name` in a folder of `PATH`. */
export function lookPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(dir === "" ? "." : dir, name);
    if (!isExecutableFile(candidate)) continue;
    // Since Go 1.19 a match in a relative folder of PATH is an error (ErrDot): not found.
    return isAbsolute(candidate) ? candidate : undefined;
  }
  return undefined;
}

/**
 * Where package `pkg`'s plugin comes from, in `GetPluginPath`'s order for the sources modelled
 * here: a `plugins.providers` entry of the project (its folder's `pulumi-resource-<pkg>` file,
 * else the folder's `PulumiPlugin.yaml`, as `ExecPlugin` falls back to it); then
 * `pulumi-resource-<pkg>` on `PATH` unless `PULUMI_IGNORE_AMBIENT_PLUGINS` is set (non-empty);
 * then, standing for the plugin cache and `pulumi package add`, the npm package's `plugin/`
 * folder (`pluginFolder`), run the same way: its executable, else its PulumiPlugin.yaml.
 */
export function findPlugin(
  pkg: string,
  projectDir: string,
  projectPlugins: readonly ProjectPlugin[],
  env: NodeJS.ProcessEnv,
): FoundPlugin {
  const file = `pulumi-resource-${pkg}`;
  /** A plugin folder as `execPlugin` runs it: its executable, else its PulumiPlugin.yaml. */
  const inFolder = (source: "project" | "package", folder: string): FoundPlugin | undefined => {
    const executable = join(folder, file);
    if (isExecutableFile(executable)) return { source, executable };
    return existsSync(join(folder, "PulumiPlugin.yaml")) ? { source, folder } : undefined;
  };
  const local = projectPlugins.find((p) => p.name === pkg);
  if (local !== undefined) {
    const found = inFolder("project", local.path);
    if (found !== undefined) return found;
    throw new Error(
      `plugins.providers in Pulumi.yaml: ${local.path} (plugin ${pkg}) has neither an executable ${file} nor a PulumiPlugin.yaml`,
    );
  }
  if ((env["PULUMI_IGNORE_AMBIENT_PLUGINS"] ?? "") === "") {
    const ambient = lookPath(file, env);
    if (ambient !== undefined) return { source: "ambient", executable: ambient };
  }
  const folder = pluginFolder(projectDir, pkg);
  return inFolder("package", folder) ?? { source: "package", folder };
}

/** Every `node_modules/.bin` from `dir` up to the root, nearest first, as `npm run` lists them. */
function binFolders(dir: string): string[] {
  const folders: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    folders.push(join(d, "node_modules", ".bin"));
    if (dirname(d) === d) return folders;
  }
}

/**
 * The `PATH` a project's run gets, as if started from that project (`npx pulumi up`, `npm run` in
 * it): the project's `node_modules/.bin` folders first; those `npm run` added for the folder
 * `launchedFrom` (this clone, under `npm run local-engine`) left out unless the project is inside
 * it, so the clone's own `pulumi-resource-cloudinfra` is not taken for the project's ambient
 * plugin. `nodeDir` (the Node running the engine) comes next, so a plugin's `env node` is it.
 */
export function projectPath(
  projectDir: string,
  path: string,
  launchedFrom: string,
  nodeDir: string,
): string {
  const project = resolve(projectDir);
  const home = resolve(launchedFrom);
  if (project === home || project.startsWith(`${home}/`)) return path;
  const theirs = binFolders(project);
  const clones = new Set(binFolders(home));
  const rest = path.split(delimiter).filter((p) => p !== "" && !clones.has(resolve(p)));
  return [...new Set([...theirs, nodeDir, ...rest])].join(delimiter);
}

/** The project's `plugins.providers` entries, paths resolved against the project directory. */
export function projectPluginsOf(projectDir: string, doc: unknown): ProjectPlugin[] {
  const providers = (doc as { plugins?: { providers?: unknown } } | null)?.plugins?.providers;
  if (providers === undefined) return [];
  if (!Array.isArray(providers)) {
    throw new Error("Pulumi.yaml: plugins.providers must be a list of {name, path}");
  }
  return providers.map((entry: unknown, i) => {
    const { name, path } = (entry ?? {}) as { name?: unknown; path?: unknown };
    if (typeof name !== "string" || typeof path !== "string") {
      throw new Error(`Pulumi.yaml: plugins.providers[${i}] needs a name and a path (strings)`);
    }
    return { name, path: resolve(projectDir, path) };
  });
}

/** The Configure arguments of a default provider: the stack's `<pkg>:*` config, secrets wrapped. */
export function defaultProviderInputs(
  pkg: string,
  config: Record<string, string>,
  secretKeys: readonly string[],
): PropertyMap {
  const inputs: PropertyMap = {};
  for (const [key, value] of Object.entries(config)) {
    if (!key.startsWith(`${pkg}:`)) continue;
    inputs[key.slice(pkg.length + 1)] = secretKeys.includes(key) ? makeSecret(value) : value;
  }
  return inputs;
}

export interface PluginProvidersOptions {
  /** The Pulumi project directory. */
  cwd: string;
  project: string;
  env: NodeJS.ProcessEnv;
  /** Pulumi.yaml's `plugins.providers`. */
  projectPlugins: readonly ProjectPlugin[];
  /** Told each line a plugin writes on stderr, as it writes it. */
  onStderrLine?: (line: string) => void;
  /** Told each warning as it is first given (GetPluginPath's ambient-plugin warning). */
  onWarning?: (message: string) => void;
}

/** The plugin processes of one operation, by provider reference (`urn::id`). */
export class PluginProviders {
  private readonly options: PluginProvidersOptions;
  private readonly hosts = new Map<string, Promise<ProviderHost>>();
  private readonly started: ProviderHost[] = [];
  /** Every plugin process started, in order: how it was found and run. */
  readonly launches: PluginLaunch[] = [];
  /** The CLI's warning for each package run from `PATH`, once per operation. */
  readonly warnings: string[] = [];

  constructor(options: PluginProvidersOptions) {
    this.options = options;
  }

  /** A new, unconfigured plugin process of package `pkg`. */
  async start(pkg: string): Promise<ProviderHost> {
    const { cwd, env } = this.options;
    const found = findPlugin(pkg, cwd, this.options.projectPlugins, env);
    // The CLI passes the engine's address (plugin.go `newPlugin`); no plugin here dials it.
    const engineAddress = "127.0.0.1:1";
    let file: string;
    let args: string[];
    if (found.executable !== undefined) {
      file = found.executable;
      args = [engineAddress];
    } else {
      file = process.execPath;
      const runPlugin = require.resolve("@pulumi/pulumi/cmd/run-plugin/index.js", {
        paths: [cwd],
      });
      args = [runPlugin, found.folder ?? "", engineAddress];
    }
    if (found.source === "ambient") {
      // GetPluginPath's warning for an ambient plugin that is not bundled with the CLI.
      const warning = `using pulumi-resource-${pkg} from $PATH at ${file}`;
      if (!this.warnings.includes(warning)) {
        this.warnings.push(warning);
        this.options.onWarning?.(warning);
      }
    }
    const host = await ProviderHost.start({
      config: {},
      cwd,
      project: this.options.project,
      env,
      plugin: { file, argv: args, name: `the ${pkg} provider plugin (${file})` },
      ...(this.options.onStderrLine ? { onStderrLine: this.options.onStderrLine } : {}),
    });
    this.started.push(host);
    this.launches.push({ pkg, source: found.source, file, args, pid: host.pid });
    return host;
  }

  /** Registers `host`, configured already, as the provider `ref`. */
  adopt(ref: string, host: ProviderHost): void {
    this.hosts.set(ref, Promise.resolve(host));
  }

  /**
   * The configured plugin of provider `ref`, started and configured with `inputs` on first use
   * (a refresh or a delete of a provider the program did not register this time).
   */
  configured(ref: string, pkg: string, inputs: () => PropertyMap): Promise<ProviderHost> {
    let host = this.hosts.get(ref);
    if (host === undefined) {
      host = this.start(pkg).then(async (h) => {
        await h.configurePlugin(inputs());
        return h;
      });
      this.hosts.set(ref, host);
    }
    return host;
  }

  /** Everything the plugins wrote on stderr. */
  get stderr(): string {
    return this.started.map((h) => h.stderr).join("");
  }

  kill(): void {
    for (const h of this.started) h.kill();
  }

  async close(): Promise<void> {
    await Promise.all(this.started.map((h) => h.close()));
  }
}
