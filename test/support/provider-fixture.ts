/**
 * The fixture of the provider-host tests: a Pulumi project that depends on the built package (the
 * working directory of the real dynamic-provider host), the serialized `__provider` of every
 * resource class captured from it, and an emulator with a host configured for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import type { EmulatorOptions } from "../../src/emulator";
import { stackConfigFor, startTestEmulator, type TestEmulator } from "./emulator";
import { HostError, type Props, ProviderHost } from "./local-engine/provider-host.ts";

export type {
  CheckResult,
  DiffChanges,
  DiffResult,
  Props,
} from "./local-engine/provider-host.ts";
export { HostError, ProviderHost };

export const ROOT = resolve(__dirname, "..", "..");
export const FIXTURE_PROJECT = join(ROOT, "test", "provider-host", "fixture");
export const FIXTURE_PROJECT_NAME = "engine-fixture";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

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

/** What {@link captureProviders} found, keyed by class name. */
export interface CapturedProviders {
  /** The `__provider` each resource class registers. */
  registered: Record<string, string>;
  /**
   * What the SDK's closure serializer makes of each class's shim (`providerShim(kind)`), called
   * as `pulumi.dynamic.Resource` calls it.
   */
  serialized: Record<string, string>;
}

/**
 * The `__provider` of each resource class, captured by constructing the classes of the built
 * package under `pulumi.runtime.setMocks` in a separate Node process (as a user's program would
 * run them), and the serialized shims in the same process. `extraEnv` is added to the
 * environment of that process.
 */
export function captureProviders(extraEnv: NodeJS.ProcessEnv = {}): CapturedProviders {
  const out = runInFixtureProject([join(FIXTURE_PROJECT, "capture-providers.cjs")], extraEnv);
  return JSON.parse(out) as CapturedProviders;
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

/** The environment of a host: ours without any CLOUDINFRA_* variable, plus `extra`. */
export function hostEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("CLOUDINFRA_")) env[k] = v;
  return { ...env, ...extra };
}

/**
 * A dynamic-provider host in the fixture project, configured with `config`, as the engine starts
 * one for an operation; its environment is {@link hostEnv} unless `env` is given.
 */
export function startFixtureHost(options: {
  config: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}): Promise<ProviderHost> {
  return ProviderHost.start({
    config: options.config,
    cwd: prepareFixtureProject(),
    project: FIXTURE_PROJECT_NAME,
    env: options.env ?? hostEnv(),
  });
}

/** The URN the engine would give a resource of this class in the fixture stack. */
export function urnOf(className: string, name: string): string {
  return `urn:pulumi:test::${FIXTURE_PROJECT_NAME}::pulumi-nodejs:dynamic/cloudinfra:${className}::${name}`;
}

export interface ProviderFixtureOptions {
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
 * An emulator, a client of it, the serialized providers and a dynamic-provider host configured
 * for the emulator: what every engine test starts with. Start it in `beforeAll`, close it in
 * `afterAll` (after any check of `stderr()` or `errors`).
 */
export interface ProviderFixture {
  emulator: TestEmulator;
  /** A client of the emulator, for the test's own arrangements and checks. */
  client: CloudInfraClient;
  /** The first host, started with the fixture. */
  host: ProviderHost;
  /** Every host `startHost()` started, the first included. */
  hosts: ProviderHost[];
  /** The serialized `__provider` of each resource class of the built package, by class name. */
  providers: Record<string, string>;
  /** The stack configuration that points a host at the emulator. */
  config: Record<string, string>;
  /** The message of every error `failure()` saw, for checks that no secret is in one. */
  errors: string[];
  /** A further host with the fixture's configuration and environment, as a new operation starts. */
  startHost(): Promise<ProviderHost>;
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

/** Starts an {@link ProviderFixture}; on a failure, closes what it had started and rethrows. */
export async function startProviderFixture(
  options: ProviderFixtureOptions = {},
): Promise<ProviderFixture> {
  const emulator = await startTestEmulator(options.emulator);
  const client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  const config = stackConfigFor(emulator);
  const hosts: ProviderHost[] = [];
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
    const env = hostEnv(options.debugLog === true ? { CLOUDINFRA_LOG: "debug" } : {});
    const started = await startFixtureHost({ config, env });
    hosts.push(started);
    return started;
  };
  try {
    const providers = captureProviders().registered;
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
