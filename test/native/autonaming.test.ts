/**
 * Autonaming on the native plugin, driven as pulumi/pulumi's Go engine drives it
 * (step_generator.go): Check carries the URN, a random seed and the user's autonaming
 * configuration; then Create; on the next run Check again with the old inputs (and a new seed),
 * then Diff against the old outputs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { readPackageSchema } from "../../src/native/package";
import type { ProviderHost } from "../support/local-engine/provider-host.ts";
import { type PluginFixture, startPluginFixture } from "../support/native-plugin";

const urnOf = (name: string) => `urn:pulumi:dev::p::cloudinfra:index:Tag::${name}`;
const PROPOSE = 0;
const ENFORCE = 1;
const DISABLE = 2;

let fx: PluginFixture;
let client: CloudInfraClient;
let host: ProviderHost;

beforeAll(async () => {
  fx = await startPluginFixture();
  ({ client, host } = fx);
});
afterAll(async () => fx?.close());

const seed = (n: number) => new Uint8Array(32).fill(n);

describe("autonaming on the native plugin", () => {
  it("the package schema shows name as optional for every named kind, and required nowhere", () => {
    const resources = (
      JSON.parse(readPackageSchema()) as {
        resources: Record<string, { inputProperties: object; requiredInputs?: string[] }>;
      }
    ).resources;
    const named = Object.entries(resources)
      .filter(([, spec]) => "name" in spec.inputProperties)
      .map(([token, spec]) => [token, spec.requiredInputs?.includes("name") ?? false]);
    expect(named).toEqual(
      ["Role", "SecurityGroup", "Server", "SshKey", "Tag", "User"].map((kind) => [
        `cloudinfra:index:${kind}`,
        false,
      ]),
    );
  });

  it("names a tag without a name <name>-xxxxxxx from the engine's seed; the next run keeps it and Diff finds nothing", async () => {
    const urn = urnOf("web");
    const news = { color: "#123456" };
    const checked = await host.check(urn, {}, news, { randomSeed: seed(1) });
    expect(checked.failures).toEqual([]);
    const name = checked.inputs["name"];
    expect(name).toMatch(/^web-[a-z0-9]{7}$/);
    // The same seed (a preview and its up share the plan's seed): the same name.
    expect((await host.check(urn, {}, news, { randomSeed: seed(1) })).inputs["name"]).toBe(name);

    const made = await host.create(urn, checked.inputs);
    expect((await client.tags.list()).find((t) => String(t.id) === made.id)?.name).toBe(name);

    // The next `up`: a new seed, the old inputs.
    const again = await host.check(urn, checked.inputs, news, { randomSeed: seed(2) });
    expect(again.inputs).toEqual(checked.inputs);
    const diff = await host.diff(urn, made.id, made.properties, again.inputs, checked.inputs);
    expect(diff).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: {},
    });
    // A refresh rewrites the inputs from the API: the marker stays, so no later run renames.
    const refreshed = await host.read(urn, made.id, made.properties, checked.inputs);
    expect(refreshed.inputs).toEqual(checked.inputs);
  });

  it("uses the name the engine proposes, in propose and in enforce mode", async () => {
    for (const [mode, proposedName] of [
      [PROPOSE, "dev-proposed-1"],
      [ENFORCE, "dev-enforced-1"],
    ] as const) {
      const checked = await host.check(
        urnOf("proposed"),
        {},
        { color: "#123456" },
        { randomSeed: seed(3), autonaming: { proposedName, mode } },
      );
      expect(checked.inputs["name"]).toBe(proposedName);
    }
  });

  it("keeps a given name whatever the configuration proposes", async () => {
    const checked = await host.check(
      urnOf("given"),
      {},
      { name: "mine", color: "#123456" },
      { randomSeed: seed(4), autonaming: { proposedName: "dev-given-1", mode: PROPOSE } },
    );
    expect(checked.inputs).toEqual({ name: "mine", color: "#123456" });
  });

  it("refuses a missing name in disable mode, saying how to fix it", async () => {
    const checked = await host.check(
      urnOf("strict"),
      {},
      { color: "#123456" },
      { randomSeed: seed(5), autonaming: { proposedName: "", mode: DISABLE } },
    );
    expect(checked.failures).toEqual([
      {
        property: "name",
        reason:
          "a name is required: autonaming is disabled by the stack's autonaming configuration (`pulumi:autonaming` mode `disable`); set `name`, or allow autonaming",
      },
    ]);
  });
});
