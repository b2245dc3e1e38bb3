/**
 * Provider sessions: one per configuration, several in one process (a native plugin's provider
 * instances for two accounts), none sharing state with another.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetHost } from "../../src/provider";
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
});
