/**
 * The request's `timeout` (the user's `customTimeouts`) and the engine's Cancel end the API
 * client's waits to retry, not only a server's status wait: a create the service keeps answering
 * 429 (`Retry-After`) ends at its time limit, or within 2 s of Cancel, with an error that says
 * which, and nothing was created. A refresh's Read ends at its `customTimeouts.read` the same way.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import type { TestEmulator } from "../support/emulator";
import { Empty, provproto } from "../support/local-engine/proto.ts";
import { type ProviderHost, struct } from "../support/local-engine/provider-host.ts";
import {
  configuredPlugin,
  type PluginFixture,
  startPluginFixture,
  unary,
} from "../support/native-plugin";

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
    // Only this create's refusals count (the test before was refused too).
    emulator.admin.clearRequests();
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

describe("a refresh's customTimeouts.read", () => {
  it("ends a Read the service keeps answering 429 at its time limit, saying so (refresh_step: ReadRequest.timeout)", async () => {
    const { seed, rules } = emulator.admin.faults();
    // Tags can be made again, and every list of them (how a tag is read) is refused with 429
    // and `Retry-After: 1`.
    await emulator.call("PUT", "/_emulator/faults", {
      json: { seed: 1, rules: [{ method: "GET", path: "/v1/tags", status_429: 1 }] },
    });
    // A plugin of its own: the one above was cancelled, and a cancelled plugin stops every wait.
    const fresh = await configuredPlugin(emulator);
    try {
      const tag = await client.tags.create({ name: "refreshed", color: "#123456" });
      const req = new provproto.ReadRequest();
      req.setUrn("urn:pulumi:dev::p::cloudinfra:index:Tag::refreshed");
      req.setId(String(tag.id));
      const state = { name: "refreshed", color: "#123456", data: "", tagId: tag.id };
      req.setProperties(struct(state));
      req.setInputs(struct({ name: "refreshed", color: "#123456" }));
      req.setTimeout(1); // customTimeouts: { read: "1s" }
      const startedAt = Date.now();
      const details = await unary(fresh, "read", req).then(
        () => "read",
        (err: { details: string }) => err.details,
      );
      const elapsed = Date.now() - startedAt;
      expect(details).toBe(
        `cloudinfra: reading Tag "refreshed" failed: GET /v1/tags aborted by the caller: the read ran out of time, customTimeouts.read (now 1.0s); raise customTimeouts.read if the service needs longer`,
      );
      expect(elapsed).toBeGreaterThanOrEqual(1_000);
      expect(elapsed).toBeLessThan(3_000);
    } finally {
      await fresh.close();
      await emulator.call("PUT", "/_emulator/faults", { json: { seed, rules } });
    }
  });
});
