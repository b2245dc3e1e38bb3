/**
 * The request's `timeout` (the user's `customTimeouts`) and the engine's Cancel end the API
 * client's waits to retry, not only a server's status wait: a create the service keeps answering
 * 429 (`Retry-After`) ends at its time limit, or within 2 s of Cancel, with an error that says
 * which, and nothing was created.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import type { TestEmulator } from "../support/emulator";
import { Empty, provproto } from "../support/local-engine/proto.ts";
import { type ProviderHost, struct } from "../support/local-engine/provider-host.ts";
import { type PluginFixture, startPluginFixture, unary } from "../support/native-plugin";

let fx: PluginFixture;
let emulator: TestEmulator;
let client: CloudInfraClient;
let host: ProviderHost;

beforeAll(async () => {
  // Every tag create is refused with 429 and `Retry-After: 1`: the client would retry for the
  // whole of its rate-limit wait (10 minutes) unless something ends it.
  fx = await startPluginFixture({
    faults: { seed: 1, rules: [{ method: "POST", path: "/v1/tags", status_429: 1 }] },
  });
  ({ emulator, client, host } = fx);
});
afterAll(async () => fx?.close());

function call<Req>(method: "create" | "cancel", req: Req): Promise<unknown> {
  return unary(host, method, req);
}

function createTag(name: string, timeoutSeconds = 0): Promise<string> {
  const req = new provproto.CreateRequest();
  req.setUrn(`urn:pulumi:dev::p::cloudinfra:index:Tag::${name}`);
  req.setProperties(struct({ name, color: "#123456" }));
  req.setTimeout(timeoutSeconds);
  return call("create", req).then(
    () => "created",
    (err: { details: string }) => err.details,
  );
}

describe("stopping the client's waits to retry", () => {
  it("a create refused with 429 ends at its customTimeouts, saying so", async () => {
    const startedAt = Date.now();
    const details = await createTag("limited", 1);
    const elapsed = Date.now() - startedAt;
    expect(details).toBe(
      'cloudinfra: creating Tag "limited" failed: POST /v1/tags aborted by the caller: the create ran out of time, customTimeouts.create (now 1.0s); raise customTimeouts.create if the service needs longer',
    );
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(3_000);
    expect(await client.tags.list()).toEqual([]);
  });

  it("Cancel during a 429's wait ends the create within 2 s", async () => {
    const creating = createTag("cancelled");
    // The create has been refused once and now waits to retry.
    await vi.waitFor(
      () => {
        const refused = emulator.admin
          .requests()
          .some((r) => r.method === "POST" && r.path === "/v1/tags" && r.status === 429);
        if (!refused) throw new Error("not refused yet");
      },
      { timeout: 10_000, interval: 20 },
    );
    emulator.admin.clearRequests();
    const cancelledAt = Date.now();
    await call("cancel", new Empty());
    const details = await creating;
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    expect(details).toBe(
      'cloudinfra: creating Tag "cancelled" failed: POST /v1/tags aborted by the caller',
    );
    expect(await client.tags.list()).toEqual([]);
  });
});
