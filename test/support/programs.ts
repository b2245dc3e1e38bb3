/**
 * Whole Pulumi programs, run after run, through the local engine against a test emulator: the
 * fixture (emulator, client, engine with its own state file) and what a test asserts about a run.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import type { EmulatorOptions } from "../../src/emulator";
import { startTestEmulator, type TestEmulator } from "./emulator";
import type { StepRecord } from "./local-engine/deployment.ts";
import {
  LocalEngine,
  type LocalEngineOptions,
  type PreviewDigest,
  type RunResult,
} from "./local-engine/engine.ts";
import { tempDir } from "./temp-dir";

export const ROOT = join(__dirname, "..", "..");

/** Server transitions in milliseconds: fast enough for many runs, still asynchronous. */
export const FAST_LIFECYCLE = {
  provisioning: 30,
  starting: 30,
  stopping: 30,
  rebooting: 30,
  deleting: 30,
};

/** A server takes 1.5 s to provision: a run lasts seconds, and a create is found in flight. */
export const SLOW_PROVISIONING = {
  provisioning: 1500,
  starting: 100,
  stopping: 100,
  rebooting: 100,
  deleting: 100,
};

export interface ProgramFixture {
  emulator: TestEmulator;
  /** A client of the emulator with the bootstrap key, for arrangements made "outside Pulumi". */
  client: CloudInfraClient;
  /** The engine for the project's `dev` stack, pointed at the emulator through stack config. */
  engine: LocalEngine;
  /** An engine over the same project and state with other options (config, env, parallel). */
  engineWith(options: Partial<LocalEngineOptions>): LocalEngine;
  close(): Promise<void>;
}

/** The environment of programs and hosts: ours without CLOUDINFRA_* (stack config decides). */
export function programEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("CLOUDINFRA_")) env[k] = v;
  return { ...env, ...extra };
}

export async function startProgramFixture(
  projectDir: string,
  options: {
    emulator?: EmulatorOptions;
    config?: Record<string, string>;
    env?: NodeJS.ProcessEnv;
    parallel?: number;
  } = {},
): Promise<ProgramFixture> {
  const emulator = await startTestEmulator(
    options.emulator ?? { lifecycle: { durations: FAST_LIFECYCLE } },
  );
  // Removed by close(), and by tempDir when the test or file ends should close() not run.
  const dir = tempDir("cloudinfra-program-");
  const client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  const base: LocalEngineOptions = {
    projectDir,
    stateFile: join(dir, "dev.json"),
    config: {
      "cloudinfra:endpoint": emulator.endpoint,
      "cloudinfra:caCert": emulator.caCert,
      ...options.config,
    },
    secretConfig: { "cloudinfra:apiKey": emulator.apiKey },
    env: programEnv(options.env),
    parallel: options.parallel ?? 8,
    programTimeoutMs: 120_000,
  };
  return {
    emulator,
    client,
    engine: new LocalEngine(base),
    engineWith: (overrides) =>
      new LocalEngine({
        ...base,
        ...overrides,
        config: { ...base.config, ...overrides.config },
      }),
    async close() {
      await client.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The diagnostics of a run a person would read (no debug lines), for failure messages. */
export function report(result: RunResult): string {
  const lines = result.diagnostics
    .filter((d) => d.severity !== "debug")
    .map((d) => `${d.severity}: ${d.message}`);
  return [...lines, result.programStderr.slice(-4000)].join("\n");
}

/** The run ended with `code`; on a mismatch the message carries what the run printed. */
export function expectExit(result: RunResult, code: number): void {
  expect(result.exitCode, report(result)).toBe(code);
}

/** A resource's name in a URN (`...::Server::web-1` is `web-1`). */
export function nameOf(urn: string): string {
  return urn.split("::").at(-1) ?? urn;
}

/** `{name: {field: kind}}` of every step of a digest with a detailed diff. */
export function detailedDiffsByName(digest: PreviewDigest): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const step of digest.steps) {
    if (step.detailedDiff === undefined) continue;
    out[nameOf(step.urn)] = Object.fromEntries(
      Object.entries(step.detailedDiff).map(([field, d]) => [field, d.kind]),
    );
  }
  return out;
}

/**
 * What the run changed, by resource name: `create`, `update`, `delete`, `replace` (a replacement
 * in either order), `read`; stack and default provider left out.
 */
export function changesByName(result: RunResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const step of result.changes) {
    if (step.type === "pulumi:pulumi:Stack" || step.type.startsWith("pulumi:providers:")) continue;
    const name = nameOf(step.urn);
    const op = ["create-replacement", "delete-replaced", "replace"].includes(step.op)
      ? "replace"
      : step.op;
    out[name] = op;
  }
  return out;
}

/** The fields each changed resource shows as changed (replace reasons for a replacement). */
export function fieldsByName(result: RunResult): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const step of result.changes as StepRecord[]) {
    if (step.type === "pulumi:pulumi:Stack" || step.type.startsWith("pulumi:providers:")) continue;
    if (step.op === "create-replacement" || step.op === "delete-replaced") continue;
    out[nameOf(step.urn)] = step.op === "replace" ? step.replaceReasons : step.diffReasons;
  }
  return out;
}

/** The state file, as stored, holds none of `secrets` in clear. */
export function expectNoSecretInState(engine: LocalEngine, secrets: readonly string[]): void {
  const raw = engine.store.raw();
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(8);
    expect(raw).not.toContain(secret);
  }
}

/** Nothing left in the emulator's account but catalogue data and system roles. */
export async function expectNothingLeft(client: CloudInfraClient): Promise<void> {
  expect(await client.servers.list()).toEqual([]);
  expect(await client.tags.list()).toEqual([]);
  expect(await client.keys.list()).toEqual([]);
  expect((await client.firewall.listPage()).data).toEqual([]);
  const roles = await client.iam.listRoles();
  expect(roles.filter((r) => !r.system_role)).toEqual([]);
}
