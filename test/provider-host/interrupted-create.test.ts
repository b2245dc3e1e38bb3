/**
 * A provider host killed (SIGKILL) while a server it created provisions: the engine never hears
 * the id, records nothing, and the next `up` creates the resource again in a new host. That
 * create takes over the server the dead host made (its journal, src/resources/journal.ts)
 * instead of making a second one.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { drivingTransitions, type TestEmulator } from "../support/emulator";
import { type ProviderFixture, startProviderFixture, urnOf } from "../support/provider-fixture";

let fx: ProviderFixture;
let emulator: TestEmulator;
let client: CloudInfraClient;

beforeAll(async () => {
  fx = await startProviderFixture({ emulator: { lifecycle: { mode: "manual" } } });
  ({ emulator, client } = fx);
}, 60_000);

afterAll(async () => {
  await fx?.close();
});

it("the next up takes over the server a killed host was waiting for, making no second one", async () => {
  const urn = urnOf("Server", "interrupted");
  const args = fx.withProvider("Server", { name: "interrupted", planId: 1, image: "ubuntu-24.04" });
  const checked = await fx.host.check(urn, {}, args);
  // The create waits for `running`, which the manual lifecycle holds back.
  const first = fx.host.create(urn, checked.inputs);
  first.catch(() => undefined);
  let made = await client.servers.list();
  while (made.length === 0) made = await client.servers.list();
  const [provisioning] = made;
  expect(provisioning?.status).toBe("provisioning");
  fx.host.kill();
  await fx.host.close();
  await expect(first).rejects.toThrow();

  // The next `up`: a new host, the same program, the same create.
  const next = await fx.startHost();
  const again = await drivingTransitions(
    emulator,
    client,
    provisioning?.id ?? 0,
    next.create(urn, checked.inputs),
  );
  expect(again.id).toBe(String(provisioning?.id));
  expect(again.properties).toMatchObject({ name: "interrupted", status: "running" });
  expect((await client.servers.list()).map((s) => s.id)).toEqual([provisioning?.id]);

  // Handed to the engine now: a later create of the same program makes a new server.
  const third = next.create(urn, checked.inputs);
  let servers = await client.servers.list();
  while (servers.length < 2) servers = await client.servers.list();
  const newest = servers.find((s) => s.id !== provisioning?.id);
  const created = await drivingTransitions(emulator, client, newest?.id ?? 0, third);
  expect(created.id).toBe(String(newest?.id));
});
