/**
 * State written by an older build keeps working after the package is upgraded: Read and Delete
 * run with the `__provider` stored in state, so the old serialized shim must reach the new code.
 * The fixture was written by the 0.1.0 build whose shims called `configure()` and
 * `resource(kind).<method>()` (today's call `run()`); the ids are remapped to objects made in this
 * test's emulator.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { NotFoundError } from "../../src/api/errors";
import type { TestEmulator } from "../support/emulator";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  startProviderFixture,
  urnOf,
} from "../support/provider-fixture";

interface OldResource {
  provider: string;
  id: string;
  inputs: Props;
  outputs: Props;
}
const fixture = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "state-0.1.0-pre-run.json"), "utf8"),
) as { resources: Record<"Tag" | "Server", OldResource> };

let fx: ProviderFixture;
let emulator: TestEmulator;
let client: CloudInfraClient;
let host: ProviderHost;

beforeAll(async () => {
  fx = await startProviderFixture({ emulator: { lifecycle: { mode: "manual" } } });
  ({ emulator, client, host } = fx);
}, 60_000);

afterAll(async () => {
  await fx?.close();
});

/** The old state, with its `__provider` and the id of the live object it now stands for. */
function oldState(kind: "Tag" | "Server", id: number, idField: string) {
  const old = fixture.resources[kind];
  expect(old.provider).toContain(".resource(kind)");
  return {
    urn: urnOf(kind, "legacy"),
    id: String(id),
    inputs: { ...old.inputs, __provider: old.provider },
    outputs: { ...old.outputs, [idField]: id, __provider: old.provider },
  };
}

describe("state written by 0.1.0 (old serialized shim)", () => {
  it("a Tag reads without drift, updates in place and deletes with the current code", async () => {
    const tag = await client.tags.create({ name: "legacy", color: "#112233", data: "owner=ops" });
    const state = oldState("Tag", tag.id, "tagId");

    const read = await host.read(state.urn, state.id, state.outputs, state.inputs);
    expect(read.id).toBe(state.id);
    expect(read.properties["__provider"]).toBe(state.outputs["__provider"]);
    expect((await host.diff(state.urn, state.id, read.properties, state.inputs)).changes).toBe(
      "none",
    );

    const news = { ...state.inputs, color: "#445566" };
    const diff = await host.diff(state.urn, state.id, read.properties, news);
    expect(diff).toMatchObject({ changes: "some", replaces: [] });
    const updated = await host.update(state.urn, state.id, read.properties, news);
    expect(updated.properties["color"]).toBe("#445566");
    expect((await client.tags.list()).find((t) => t.id === tag.id)?.color).toBe("#445566");

    await host.delete(state.urn, state.id, updated.properties);
    expect(await client.tags.list()).toEqual([]);
  });

  it("a Server reads without drift, renames in place and deletes with the current code", async () => {
    const [created] = await client.servers.create({
      plan_id: 2,
      image: "debian-12",
      user_defined_name: "legacy-web",
    });
    const id = created?.id ?? 0;
    await emulator.admin.advance({ server_id: id });
    const state = oldState("Server", id, "serverId");

    const read = await host.read(state.urn, state.id, state.outputs, state.inputs);
    expect(read.id).toBe(state.id);
    expect(read.properties["status"]).toBe("running");
    expect((await host.diff(state.urn, state.id, read.properties, state.inputs)).changes).toBe(
      "none",
    );

    const news = { ...state.inputs, name: "legacy-web-2" };
    const updated = await host.update(state.urn, state.id, read.properties, news);
    expect(updated.properties["name"]).toBe("legacy-web-2");
    expect((await client.servers.get(id)).user_defined_name).toBe("legacy-web-2");

    // Delete waits for the server to be gone: let the emulator finish the transition meanwhile.
    const deleting = host.delete(state.urn, state.id, updated.properties);
    for (let i = 0; i < 200; i++) {
      const status = await client.servers.get(id).then(
        (s) => s.status,
        (err: unknown) => (err instanceof NotFoundError ? "gone" : "error"),
      );
      if (status === "deleting") await emulator.admin.advance({ server_id: id });
      if (status === "gone") break;
    }
    await deleting;
    await expect(client.servers.get(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
