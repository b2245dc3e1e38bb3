/**
 * Provider sessions: one per configuration, several in one process (a native plugin's provider
 * instances for two accounts), none sharing state with another.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/api/errors";
import { configure, configuredSession, onHost, resetHost } from "../../src/provider";
import { serverWatch } from "../../src/resources/server/watch";
import { sessionFor } from "../../src/resources/session";
import { operations as tag } from "../../src/resources/tag/provider";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

describe("ProviderSession", () => {
  let first: TestEmulator;
  let second: TestEmulator;
  const configOf = (emulator: TestEmulator) => ({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });

  beforeAll(async () => {
    [first, second] = await Promise.all([startTestEmulator(), startTestEmulator()]);
    // Nothing configured the way a dynamic host is: only explicit configurations are used.
    await resetHost();
  });
  afterAll(async () => {
    await resetHost();
    await Promise.all([first?.close(), second?.close()]);
  });

  it("gives one session per configuration", () => {
    expect(sessionFor(configOf(first))).toBe(sessionFor(configOf(first)));
    expect(sessionFor(configOf(second))).not.toBe(sessionFor(configOf(first)));
    expect(sessionFor({ ...configOf(first), timeoutMs: 5000 })).not.toBe(
      sessionFor(configOf(first)),
    );
  });

  it("runs a kind's operations for two accounts in one process, each in its own account", async () => {
    const a = sessionFor(configOf(first));
    const b = sessionFor(configOf(second));
    const inputs = (await tag.check(a, {}, { name: "web", color: "#00FF00" })).inputs ?? {};
    const [madeInA, madeInB] = await Promise.all([tag.create(a, inputs), tag.create(b, inputs)]);
    expect((await first.call("GET", "/v1/tags")).body).toEqual([
      expect.objectContaining({ id: Number(madeInA.id), name: "web" }),
    ]);
    expect((await second.call("GET", "/v1/tags")).body).toEqual([
      expect.objectContaining({ id: Number(madeInB.id), name: "web" }),
    ]);
    expect((await tag.read(a, madeInA.id, {})).props).toMatchObject({ name: "web" });
  });

  it("keeps the server watch in a slot of each session, none shared between two", () => {
    const a = sessionFor(configOf(first));
    const b = sessionFor(configOf(second));
    expect(serverWatch(a)).toBe(serverWatch(a));
    expect(serverWatch(b)).not.toBe(serverWatch(a));
  });

  it("knows nothing of a kind: session.ts imports no kind folder", () => {
    const source = readFileSync(resolve(__dirname, "../../src/resources/session.ts"), "utf8");
    const imports = [...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports).toEqual([
      "../api/client",
      "../api/http",
      "../api/log",
      "../config",
      "./create",
      "./journal",
      "./shared-list",
      "./stack-objects",
    ]);
  });
});

describe("the dynamic host's session", () => {
  let emulator: TestEmulator;
  const variables = ["CLOUDINFRA_ENDPOINT", "CLOUDINFRA_API_KEY", "CLOUDINFRA_CA_CERT"] as const;
  const saved = variables.map((v) => process.env[v]);

  beforeAll(async () => {
    emulator = await startTestEmulator();
    for (const v of variables) delete process.env[v];
    await resetHost();
  });
  afterAll(async () => {
    await resetHost();
    variables.forEach((v, i) => {
      if (saved[i] !== undefined) process.env[v] = saved[i];
    });
    await emulator?.close();
  });

  it("passes an unconfigured session: check runs, a call to the API fails naming the setting", async () => {
    const host = onHost(tag);
    const checked = await host.check({}, { name: "web", color: "#00FF00" });
    expect(checked.failures ?? []).toEqual([]);
    const failure = await host.create(checked.inputs ?? {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigurationError);
    expect((failure as Error).message).toBe(
      "cloudinfra: no API endpoint is configured: set it with `pulumi config set cloudinfra:endpoint ...` or the CLOUDINFRA_ENDPOINT environment variable",
    );
  });

  it("is made by configure(): the same configuration keeps it, another makes a new one", async () => {
    const config = {
      "cloudinfra:endpoint": emulator.endpoint,
      "cloudinfra:apiKey": emulator.apiKey,
      "cloudinfra:caCert": emulator.caCert,
    } as Record<string, string>;
    configure({ config: { get: (k) => config[k] } });
    const made = configuredSession();
    configure({ config: { get: (k) => config[k] } });
    expect(configuredSession()).toBe(made);
    const host = onHost(tag);
    const inputs = (await host.check({}, { name: "hosted", color: "#00FF00" })).inputs ?? {};
    const created = await host.create(inputs);
    expect((await emulator.call("GET", `/v1/tags`)).body).toEqual([
      expect.objectContaining({ id: Number(created.id), name: "hosted" }),
    ]);
    configure({ config: { get: (k) => (k === "cloudinfra:apiKey" ? "another-key" : config[k]) } });
    expect(configuredSession()).not.toBe(made);
  });
});
