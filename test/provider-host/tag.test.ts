/**
 * The Tag resource through the real dynamic-provider host, as the Pulumi engine drives it: every
 * call carries the `__provider` serialized from the built package's Tag class, and the host talks
 * to an in-process emulator. A refresh after a change made outside Pulumi runs in a new host, as
 * `pulumi refresh` would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestEmulator } from "../support/emulator";
import { closeHostsCheckingLog } from "../support/provider-assertions";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startProviderFixture,
  UNKNOWN,
  urnOf,
} from "../support/provider-fixture";

let fx: ProviderFixture;
let emulator: TestEmulator;
let config: Record<string, string>;
let host: ProviderHost;
let servers: [number, number, number];

/** A Tag's `data` as a user marks it secret: the provider cannot know, so it must never log it. */
const SECRET_DATA = "token=s3cr3t-in-tag-data";

const program = (args: Props) => fx.withProvider("Tag", args);
const up = (name: string, args: Props) => fx.up("Tag", name, args);

async function liveTag(id: string) {
  const { body } = await emulator.call("GET", "/v1/tags");
  const tag = (
    body as { id: number; name: string; color: string; data: string; servers: { id: number }[] }[]
  ).find((t) => String(t.id) === id);
  return tag === undefined
    ? undefined
    : { ...tag, servers: tag.servers.map((s) => s.id).sort((a, b) => a - b) };
}

beforeAll(async () => {
  // Every host runs with the client's debug log on, so that stderr has content.
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, config, host } = fx);
  await emulator.call("POST", "/_emulator/seed", { json: { servers: 3 } });
  const { body } = await emulator.call("GET", "/v1/servers");
  servers = (body as { id: number }[]).map((s) => s.id).sort((a, b) => a - b) as typeof servers;
});

afterAll(async () => {
  // With the client's debug log on, every request of every host went to stderr: never the key.
  await closeHostsCheckingLog(fx, "GET /v1/tags", [emulator.apiKey, SECRET_DATA]);
  await fx.close();
});

describe("Tag through the Pulumi dynamic-provider host", () => {
  it("configures without secret support: secrets are the engine's business", async () => {
    expect(await host.configure(config)).toEqual({ acceptSecrets: false });
  });

  it("creates, reads without drift, updates in place (rename, recolour, membership) and deletes", async () => {
    const [a, b, c] = servers;
    const created = await up("web", { name: "web", color: "#FF00AA", serverIds: [String(b), a] });
    expect(created.inputs).toEqual(program({ name: "web", color: "#ff00aa", serverIds: [a, b] }));
    expect(created.properties).toEqual(
      program({
        tagId: Number(created.id),
        name: "web",
        color: "#ff00aa",
        data: "",
        serverIds: [a, b],
      }),
    );
    expect(await liveTag(created.id)).toMatchObject({
      name: "web",
      color: "#ff00aa",
      servers: [a, b],
    });

    const refreshed = await host.read(created.urn, created.id, created.properties, created.inputs);
    expect(refreshed).toEqual({
      id: created.id,
      properties: created.properties,
      inputs: created.inputs,
    });

    // The program unchanged, spelled differently: the engine would plan nothing.
    const respelled = await host.check(
      created.urn,
      created.inputs,
      program({ name: "web", color: "#ff00AA", serverIds: [b, String(a)] }),
    );
    expect(
      await host.diff(created.urn, created.id, refreshed.properties, respelled.inputs),
    ).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });
    // Even without check's normalising, letter case alone is no change.
    expect(
      (
        await host.diff(
          created.urn,
          created.id,
          refreshed.properties,
          program({ name: "web", color: "#FF00AA", serverIds: [a, b] }),
        )
      ).changes,
    ).toBe("none");

    const changed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "web-renamed", color: "#00FF00", data: "team=web", serverIds: [c] }),
    );
    const plan = await host.diff(created.urn, created.id, refreshed.properties, changed.inputs);
    expect(plan).toEqual({ changes: "some", replaces: [], deleteBeforeReplace: false });
    const updated = await host.update(
      created.urn,
      created.id,
      refreshed.properties,
      changed.inputs,
    );
    expect(updated.properties).toEqual(
      program({
        tagId: Number(created.id),
        name: "web-renamed",
        color: "#00ff00",
        data: "team=web",
        serverIds: [c],
      }),
    );
    expect(await liveTag(created.id)).toMatchObject({
      name: "web-renamed",
      color: "#00ff00",
      data: "team=web",
      servers: [c],
    });
    const afterUpdate = await host.read(
      created.urn,
      created.id,
      updated.properties,
      changed.inputs,
    );
    expect(afterUpdate.properties).toEqual(updated.properties);
    expect(
      await host.diff(created.urn, created.id, afterUpdate.properties, changed.inputs),
    ).toMatchObject({ changes: "none" });

    // Membership only: `[]` takes the tag off every server.
    const emptied = await host.check(
      created.urn,
      changed.inputs,
      program({ name: "web-renamed", color: "#00ff00", data: "team=web", serverIds: [] }),
    );
    expect(
      await host.diff(created.urn, created.id, afterUpdate.properties, emptied.inputs),
    ).toMatchObject({ changes: "some", replaces: [] });
    await host.update(created.urn, created.id, afterUpdate.properties, emptied.inputs);
    expect((await liveTag(created.id))?.servers).toEqual([]);

    await host.delete(created.urn, created.id, updated.properties);
    expect(await liveTag(created.id)).toBeUndefined();
    expect((await host.read(created.urn, created.id, updated.properties)).id).toBe("");
    // A delete the engine repeats (the first answer was lost) succeeds.
    await host.delete(created.urn, created.id, updated.properties);
  });

  it("never replaces a tag: changing every property at once still updates in place", async () => {
    const created = await up("all-change", {
      name: "all-change",
      color: "#000000",
      data: "a",
      serverIds: [],
    });
    const everything = await host.check(
      created.urn,
      created.inputs,
      program({ name: "all-changed", color: "#ffffff", data: "b", serverIds: [servers[0]] }),
    );
    expect(await host.diff(created.urn, created.id, created.properties, everything.inputs)).toEqual(
      {
        changes: "some",
        replaces: [],
        deleteBeforeReplace: false,
      },
    );
    await host.delete(created.urn, created.id, created.properties);
  });

  it("plans a preview with unknown values: check passes them through, diff updates in place", async () => {
    const urn = urnOf("Tag", "preview");
    const checked = await host.check(
      urn,
      {},
      program({ name: UNKNOWN, color: "#ABCDEF", serverIds: UNKNOWN }),
    );
    expect(checked).toEqual({
      inputs: program({ name: UNKNOWN, color: "#abcdef", serverIds: UNKNOWN }),
      failures: [],
    });
    const olds = program({
      tagId: 1,
      name: "p",
      color: "#abcdef",
      data: "",
      serverIds: [servers[0]],
    });
    expect(
      await host.diff(urn, "1", olds, program({ name: "p", color: "#abcdef", serverIds: UNKNOWN })),
    ).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(
      await host.diff(
        urn,
        "1",
        olds,
        program({ name: "p", color: "#abcdef", serverIds: [servers[0], UNKNOWN] }),
      ),
    ).toMatchObject({
      changes: "some",
    });
  });

  it("fails check per property, with the reason", async () => {
    const checked = await host.check(
      urnOf("Tag", "bad"),
      {},
      program({ name: "bad", color: "#12345", serverIds: ["srv-1"] }),
    );
    expect(checked.failures).toEqual([
      { property: "color", reason: "color: expected a colour of the form #RRGGBB, like #ff00aa" },
      {
        property: "serverIds",
        reason:
          'serverIds[0]: expected a server id (a positive integer, or its decimal text), got "srv-1"',
      },
    ]);
  });

  it("shows a change made outside Pulumi as exactly that field on refresh, and a deletion as gone", async () => {
    const [a, b] = servers;
    const created = await up("drift", {
      name: "drift",
      color: "#112233",
      data: "keep",
      serverIds: [a],
    });
    await emulator.call("POST", `/v1/tags/${created.id}`, {
      json: { name: "drift", color: "#445566", server_ids: [a, b] },
    });
    // `pulumi refresh` is a new operation, with a new provider host.
    const refresher = await fx.startHost();
    const refreshed = await refresher.read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(refreshed.id).toBe(created.id);
    expect(refreshed.inputs).toEqual({ ...created.inputs, color: "#445566", serverIds: [a, b] });
    expect(refreshed.properties).toEqual({
      ...created.properties,
      color: "#445566",
      serverIds: [a, b],
    });
    // The program still says the old values: the plan is an in-place update back to them...
    expect(
      await refresher.diff(created.urn, created.id, refreshed.properties, created.inputs),
    ).toEqual({
      changes: "some",
      replaces: [],
      deleteBeforeReplace: false,
    });
    // ...and those fields are all that differ: adopting them leaves nothing to do.
    const adopted = program({ name: "drift", color: "#445566", data: "keep", serverIds: [b, a] });
    expect(
      (await refresher.diff(created.urn, created.id, refreshed.properties, adopted)).changes,
    ).toBe("none");

    await emulator.call("DELETE", `/v1/tags/${created.id}`);
    const gone = await fx.startHost();
    expect(
      await gone.read(created.urn, created.id, refreshed.properties, refreshed.inputs),
    ).toMatchObject({ id: "" });
  });

  it("never logs a tag's data, which the user may have made secret, on create, refresh, update or delete", async () => {
    const created = await up("secret-data", {
      name: "secret-data",
      color: "#000000",
      data: SECRET_DATA,
    });
    const refresher = await fx.startHost();
    const refreshed = await refresher.read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(refreshed.properties).toMatchObject({ data: SECRET_DATA });
    const news = program({ name: "secret-data", color: "#000000", data: `${SECRET_DATA}-2` });
    await refresher.update(created.urn, created.id, refreshed.properties, news);
    await refresher.delete(created.urn, created.id, refreshed.properties);
    await refresher.close();
    // The debug log saw every call, by method, path and the names of the fields sent.
    expect(refresher.stderr).toMatch(
      /POST \/v1\/tags\/\d+ -> 200 .*"request":\{"fields":\["color","data","name"\]\}/,
    );
    expect(refresher.stderr).not.toContain(SECRET_DATA);
  });

  it("refreshes many tags in one host with one list request", async () => {
    const made = [];
    for (let i = 0; i < 30; i++)
      made.push(await up(`many-${i}`, { name: `many-${i}`, color: "#010203" }));
    const refresher = await fx.startHost();
    await emulator.call("DELETE", "/_emulator/requests");
    const reads = await Promise.all(
      made.map((t) => refresher.read(t.urn, t.id, t.properties, t.inputs)),
    );
    expect(reads.map((r) => r.id)).toEqual(made.map((t) => t.id));
    const { body } = await emulator.call("GET", "/_emulator/counters");
    const lists = (
      body as { routes: { method: string; route: string; total: number }[] }
    ).routes.find((r) => r.method === "GET" && r.route === "/v1/tags");
    expect(lists?.total).toBe(1);
  });
});
