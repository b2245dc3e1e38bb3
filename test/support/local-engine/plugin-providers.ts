/**
 * Resource provider plugins (packages other than the dynamic `pulumi-nodejs`), as the CLI runs
 * them: one plugin process per provider resource, default or explicit (pkg/resource/deploy/
 * providers/registry.go loads a plugin for each), started as the Node language host starts a
 * plugin written in Node (`@pulumi/pulumi/cmd/run-plugin <folder>`, the folder holding
 * `PulumiPlugin.yaml`), which prints its port first. A provider resource is checked
 * (CheckConfig), diffed against its old config (DiffConfig) and configured (Configure) on its own
 * process.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
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
}

/** The plugin processes of one operation, by provider reference (`urn::id`). */
export class PluginProviders {
  private readonly options: PluginProvidersOptions;
  private readonly hosts = new Map<string, Promise<ProviderHost>>();
  private readonly started: ProviderHost[] = [];

  constructor(options: PluginProvidersOptions) {
    this.options = options;
  }

  /** A new, unconfigured plugin process of package `pkg`. */
  async start(pkg: string): Promise<ProviderHost> {
    const runPlugin = require.resolve("@pulumi/pulumi/cmd/run-plugin/index.js", {
      paths: [this.options.cwd],
    });
    const host = await ProviderHost.start({
      config: {},
      cwd: this.options.cwd,
      project: this.options.project,
      env: this.options.env,
      plugin: {
        argv: [runPlugin, pluginFolder(this.options.cwd, pkg), "127.0.0.1:1"],
        name: `the ${pkg} provider plugin`,
      },
    });
    this.started.push(host);
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
