/**
 * Cancel ends an API request in flight, not only the waits around it: a server create whose POST
 * the service holds ends within 2 s of Cancel, saying the request may have been applied, and
 * leaves its create journal entry open. The service applies the POST it received whole though
 * its client hung up (as a real one does); the next run (a new plugin process, as the next
 * `pulumi up` starts) takes over the server it made: exactly one server, that one, never sent again.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { Empty, provproto } from "../support/local-engine/proto.ts";
import { type ProviderHost, struct } from "../support/local-engine/provider-host.ts";
import { configuredPlugin, unary } from "../support/native-plugin";
import { FAST_LIFECYCLE } from "../support/programs";

const HELD_MS = 3_000;
const URN = "urn:pulumi:dev::p::cloudinfra:index:Server::held";
const INPUTS = { name: "held-web", planId: 1, image: "ubuntu-24.04" };

let emulator: TestEmulator;
let client: CloudInfraClient;
let journalDir: string;
const hosts: ProviderHost[] = [];

beforeAll(async () => {
  // Every server create is held 3 s before the service handles it (and makes the server). The
  // first one's answer is lost besides (it goes to no one: its client hangs up first), which
  // counts it in the faults' `injected` as soon as the service has received it.
  emulator = await startTestEmulator({
    lifecycle: { durations: FAST_LIFECYCLE },
    faults: {
      seed: 1,
      rules: [
        {
          method: "POST",
          path: "/v1/servers",
          latency_ms: [HELD_MS, HELD_MS],
          answer_lost: 1,
          limit: 1,
        },
      ],
    },
  });
  client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  journalDir = mkdtempSync(join(tmpdir(), "cloudinfra-journal-"));
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await client?.close();
  await emulator?.close();
  if (journalDir !== undefined) rmSync(journalDir, { recursive: true, force: true });
});

/** A plugin process of one run; the runs share the create journal, as on one machine. */
async function run(): Promise<ProviderHost> {
  const host = await configuredPlugin(emulator, { CLOUDINFRA_JOURNAL_DIR: journalDir });
  hosts.push(host);
  return host;
}

function createServer(host: ProviderHost): Promise<{ id: string } | { details: string }> {
  const req = new provproto.CreateRequest();
  req.setUrn(URN);
  req.setProperties(struct(INPUTS));
  return unary<unknown, InstanceType<typeof provproto.CreateResponse>>(host, "create", req).then(
    (res) => ({ id: res.getId() }),
    (err: { details: string }) => ({ details: err.details }),
  );
}

/** The create journal's open entries (a closed one moves to closed/). */
function openEntries(): string[] {
  return readdirSync(journalDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".json") && !f.includes("closed"));
}

describe("Cancel with a create's POST in flight", () => {
  it("ends the Create within 2 s, leaves its journal entry open, and the next run takes over the server the held POST made", async () => {
    const first = await run();
    const creating = createServer(first);
    // Cancel once the service holds the POST (on a busy machine, a Cancel sent as soon as the
    // journal entry is written can end the POST before it has left the plugin).
    await vi.waitFor(
      () => {
        expect(emulator.admin.faults().injected).toEqual([1]);
      },
      { timeout: 10_000, interval: 10 },
    );
    expect(openEntries()).toHaveLength(1);
    const cancelledAt = Date.now();
    await unary(first, "cancel", new Empty());
    const answer = await creating;
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    // The journal's folder for this project and account is a hash under CLOUDINFRA_JOURNAL_DIR.
    const details = "details" in answer ? answer.details : "";
    expect(details.replace(/\/[0-9a-f]{24} /, "/<project> ")).toBe(
      `cloudinfra: creating Server "held-web" failed: POST /v1/servers aborted by the caller; the request may have been applied: the next pulumi up of this project takes over what it made from the create journal in ${journalDir}/<project> (on this machine; a CI runner keeps it only if CLOUDINFRA_JOURNAL_DIR is kept between runs)`,
    );

    // The entry stays open (not moved to closed/) for the next run to take over.
    expect(openEntries()).toHaveLength(1);

    // The service goes on with the held POST after its client hung up: once its delay ends, it
    // makes the server and logs the request as aborted by the client.
    await vi.waitFor(
      () => {
        expect(
          emulator.admin.requests().filter((e) => e.method === "POST" && e.route === "/v1/servers"),
        ).toEqual([expect.objectContaining({ status: 201, aborted: true })]);
      },
      { timeout: 10_000, interval: 20 },
    );
    const made = (await client.servers.list()).filter((s) => s.user_defined_name === "held-web");
    expect(made).toHaveLength(1);

    // The next `pulumi up`: the first run's plugin is gone, a new one creates the same server.
    await first.close();
    const second = await run();
    const next = await createServer(second);
    const after = (await client.servers.list()).filter((s) => s.user_defined_name === "held-web");
    expect(after).toHaveLength(1);
    expect(next).toEqual({ id: String(after[0]?.id) });
    // The server the held POST made is the one taken over; no POST is sent again.
    expect(after.map((s) => s.id)).toEqual(made.map((s) => s.id));
    expect(
      emulator.admin.requests().filter((e) => e.method === "POST" && e.route === "/v1/servers"),
    ).toHaveLength(1);
    expect(openEntries()).toEqual([]);
  });
});
