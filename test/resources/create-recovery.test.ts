/**
 * Creates under faults, in-process against the emulator, one test per defect the fault trial of
 * issue 9 found: a create whose answer may have been applied never makes a second object, never
 * takes one that existed before it, never leaks what it made when a read fails, sends again when
 * it proved nothing was made, and says what it found.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import type { FaultRule } from "../../src/emulator";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { resetHost } from "../../src/provider";
import type { KindOperations, ResourceImplementation } from "../../src/resources/common";
import { operations as securityGroupOps } from "../../src/resources/security-group/provider";
import { operations as serverOps } from "../../src/resources/server/provider";
import { type ProviderSession, sessionFor } from "../../src/resources/session";
import { operations as sshKeyOps } from "../../src/resources/ssh-key/provider";
import { operations as tagOps } from "../../src/resources/tag/provider";
import { existingServerIn, startTestEmulator, type TestEmulator } from "../support/emulator";
import { seedGiving } from "../support/fault-seeds";
import { checkedInputs, rejection } from "../support/implementations";

const FAST = { provisioning: 20, starting: 20, stopping: 20, rebooting: 20, deleting: 20 };

let emulator: TestEmulator;
let api: CloudInfraClient;
/** A new provider session per test, as a new provider host starts. */
let session: ProviderSession;

/**
 * `operations` on the test's session, in the shape the engine calls. The session's configuration
 * keeps the retries as many as in production; only the waits between them shrink.
 */
function onTestSession(operations: KindOperations): ResourceImplementation {
  const bound = Object.entries(operations).map(([method, run]) => [
    method,
    (...args: unknown[]) =>
      (run as (s: ProviderSession, ...a: unknown[]) => unknown)(session, ...args),
  ]);
  return Object.fromEntries(bound) as ResourceImplementation;
}

const server = onTestSession(serverOps);
const securityGroup = onTestSession(securityGroupOps);
const sshKey = onTestSession(sshKeyOps);
const tag = onTestSession(tagOps);

beforeAll(async () => {
  emulator = await startTestEmulator({ lifecycle: { mode: "auto", durations: FAST } });
  // Probing seeds and the retries under test send more requests than the default burst allows.
  emulator.admin.setRateLimit({ enabled: false });
  api = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
});

beforeEach(async () => {
  emulator.admin.clearFaults();
  await resetHost();
  session = sessionFor({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 4,
  });
});

afterAll(async () => {
  await api?.close();
  await resetHost();
  await emulator?.close();
});

/** Requests of `method` to `route` the emulator received since the log was last cleared. */
function requestsTo(method: string, route: string): number {
  return emulator.admin.requests(10_000).filter((r) => r.method === method && r.route === route)
    .length;
}

/**
 * Faults where the list of `path` fails with a 500 `failures` times in a row, more than the
 * client's own retries of a read (4), then answers again; `others` apply besides.
 */
function listFailing(path: string, failures: number, others: FaultRule[] = []) {
  emulator.admin.setFaults({
    seed: 1,
    rules: [{ method: "GET", path, status_500: 1, limit: failures }, ...others],
  });
}

/**
 * As {@link listFailing}, but the first list succeeds (a look at what exists before a create)
 * and only the next `failures` fail. `others` come after: the seed found for the list rule holds
 * only at index 0.
 */
async function listFailingAfterFirst(path: string, failures: number, others: FaultRule[] = []) {
  const rule = { method: "GET" as const, path, status_500: 0.8, limit: failures };
  const pattern = [false, ...Array.from({ length: failures }, () => true)];
  const seed = await seedGiving(emulator, rule, path, pattern);
  emulator.admin.setFaults({ seed, rules: [rule, ...others] });
}

describe("defect 1: a replacement never claims the server it replaces", () => {
  it("sends again after a 502 that made nothing, although an identical server exists", async () => {
    // The old server: same name, plan, image and firewall, created moments ago (a replacement
    // is created before the old one is deleted).
    const old = await existingServerIn(emulator, api, "web");
    await emulator.call("DELETE", "/_emulator/requests");
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers", status_502: 1, limit: 1 }],
    });
    const replacement = await server.create(
      await checkedInputs(server, { name: "web", planId: old.plan_id, image: "ubuntu-24.04" }),
    );
    expect(replacement.id).not.toBe(String(old.id));
    expect(requestsTo("POST", "/v1/servers")).toBe(2);
    const named = (await api.servers.list()).filter((s) => s.user_defined_name === "web");
    expect(named.map((s) => s.id).sort((a, b) => a - b)).toEqual(
      [old.id, Number(replacement.id)].sort((a, b) => a - b),
    );
  });

  it("after a lost answer takes the server the request made, not the identical older one", async () => {
    const old = await existingServerIn(emulator, api, "api");
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/servers", answer_lost: 1, limit: 1 }],
    });
    const replacement = await server.create(
      await checkedInputs(server, { name: "api", planId: old.plan_id, image: "ubuntu-24.04" }),
    );
    const named = (await api.servers.list()).filter((s) => s.user_defined_name === "api");
    expect(named).toHaveLength(2);
    expect(replacement.id).not.toBe(String(old.id));
    expect(named.map((s) => String(s.id))).toContain(replacement.id);
  });
});

describe("defect 2: a failed read right after a create leaks nothing", () => {
  it("a security group answered 201 is found although the list fails five times after it", async () => {
    await listFailingAfterFirst("/v1/firewall/groups", 5);
    const created = await securityGroup.create(
      await checkedInputs(securityGroup, { name: "sg", rules: [] }),
    );
    emulator.admin.clearFaults();
    const groups = (await api.firewall.listAll()).filter((g) => g.name === "sg");
    expect(groups.map((g) => String(g.id))).toEqual([created.id]);
  });

  it("a tag whose answer was lost is found although the list fails five times around it", async () => {
    listFailing("/v1/tags", 5, [{ method: "POST", path: "/v1/tags", answer_lost: 1, limit: 1 }]);
    const created = await tag.create(await checkedInputs(tag, { name: "lost", color: "#000000" }));
    emulator.admin.clearFaults();
    const tags = (await api.tags.list()).filter((t) => t.name === "lost");
    expect(tags.map((t) => String(t.id))).toEqual([created.id]);
  });

  it("a server whose answer was lost, holding a group, is found although the list fails five times around it", async () => {
    await api.firewall.create({ name: "held", rules: [] });
    const held = (await api.firewall.listAll()).find((g) => g.name === "held");
    listFailing("/v1/servers", 5, [
      { method: "POST", path: "/v1/servers", answer_lost: 1, limit: 1 },
    ]);
    const created = await server.create(
      await checkedInputs(server, {
        name: "holder",
        planId: 1,
        image: "ubuntu-24.04",
        securityGroupIds: [held?.id],
      }),
    );
    emulator.admin.clearFaults();
    const named = (await api.servers.list()).filter((s) => s.user_defined_name === "holder");
    expect(named.map((s) => String(s.id))).toEqual([created.id]);
    // Recorded, so destroy deletes it and then the group it holds.
    await server.delete(created.id, created.outs ?? {});
    await securityGroup.delete(String(held?.id), { name: "held" });
    expect((await api.firewall.listAll()).some((g) => g.name === "held")).toBe(false);
  });

  it("an object left by an earlier failed run is named with its id and adoptId", async () => {
    await api.tags.create({ name: "left-behind", color: "#000000" });
    const existing = (await api.tags.list()).find((t) => t.name === "left-behind");
    const err = await rejection(
      tag.create(await checkedInputs(tag, { name: "left-behind", color: "#000000" })),
    );
    expect(err.message).toContain(
      `a tag named "left-behind" already exists (tag id ${existing?.id}); tag names are unique in an account: choose another name, or delete or rename the existing tag, or, if no resource of this stack manages it, adopt it with adoptId: ${existing?.id}`,
    );
  });
});

describe("defect 3: a create is sent again when the lookup proved nothing was made", () => {
  const notApplied = (path: string): FaultRule[] => [
    { method: "POST", path, status_502: 1, limit: 1 },
  ];

  it("for a tag", async () => {
    emulator.admin.setFaults({ seed: 1, rules: notApplied("/v1/tags") });
    await emulator.call("DELETE", "/_emulator/requests");
    const created = await tag.create(
      await checkedInputs(tag, { name: "resent", color: "#00ff00" }),
    );
    expect(requestsTo("POST", "/v1/tags")).toBe(2);
    expect(
      (await api.tags.list()).filter((t) => t.name === "resent").map((t) => String(t.id)),
    ).toEqual([created.id]);
  });

  it("for an imported SSH key", async () => {
    emulator.admin.setFaults({ seed: 1, rules: notApplied("/v1/keys") });
    await emulator.call("DELETE", "/_emulator/requests");
    const pair = generateEd25519KeyPair();
    const created = await sshKey.create(
      await checkedInputs(sshKey, { name: "imported", publicKey: pair.publicKey }),
    );
    expect(requestsTo("POST", "/v1/keys")).toBe(2);
    expect(
      (await api.keys.list()).filter((k) => k.name === "imported").map((k) => String(k.id)),
    ).toEqual([created.id]);
  });

  it("for a generated SSH key", async () => {
    emulator.admin.setFaults({ seed: 1, rules: notApplied("/v1/keys") });
    await emulator.call("DELETE", "/_emulator/requests");
    const created = await sshKey.create(
      await checkedInputs(sshKey, { name: "generated", generate: true }),
    );
    expect(created.outs?.["privateKey"]).toMatch(/PRIVATE KEY/);
    expect(requestsTo("POST", "/v1/keys")).toBe(2);
    expect((await api.keys.list()).filter((k) => k.name === "generated")).toHaveLength(1);
  });
});

describe("defect 5: what a lost answer made and the provider can prove is its own is cleaned up", () => {
  it("a generated key: deleted (a delete whose answer is lost counts), then generated again", async () => {
    emulator.admin.setFaults({
      seed: 1,
      rules: [
        { method: "POST", path: "/v1/keys", answer_lost: 1, limit: 1 },
        // The clean-up's delete is applied but its answer lost; the retry answers 404.
        { method: "DELETE", path: "/v1/keys/:id", answer_lost: 1, limit: 1 },
      ],
    });
    const created = await sshKey.create(
      await checkedInputs(sshKey, { name: "regenerated", generate: true }),
    );
    expect(created.outs?.["privateKey"]).toMatch(/PRIVATE KEY/);
    emulator.admin.clearFaults();
    expect(
      (await api.keys.list()).filter((k) => k.name === "regenerated").map((k) => String(k.id)),
    ).toEqual([created.id]);
  });
});

describe("defect 6: messages say what the provider found", () => {
  it("after sending in vain, that nothing was made, without 'check for the resource'", async () => {
    emulator.admin.setFaults({
      seed: 1,
      rules: [{ method: "POST", path: "/v1/tags", status_502: 1 }],
    });
    const err = await rejection(
      tag.create(await checkedInputs(tag, { name: "never", color: "#000000" })),
    );
    expect(err.message).toMatch(
      /^cloudinfra: creating Tag "never" failed: POST \/v1\/tags failed: 502 unavailable: .*; the request was sent 3 times and each time it failed, the tag was looked for and not found: nothing was made; run pulumi up again$/,
    );
    expect(err.message).not.toContain("check for the resource");
    emulator.admin.clearFaults();
    expect((await api.tags.list()).some((t) => t.name === "never")).toBe(false);
  });

  it("a lookup that fails is said, with what to look for and adoptId", async () => {
    // The list fails on every attempt of the lookup (1 + 8 retries).
    await listFailingAfterFirst("/v1/tags", 9, [
      { method: "POST", path: "/v1/tags", answer_lost: 1, limit: 1 },
    ]);
    const err = await rejection(
      tag.create(await checkedInputs(tag, { name: "unfound", color: "#000000" })),
    );
    expect(err.message).toMatch(
      /^cloudinfra: creating Tag "unfound" failed: POST \/v1\/tags failed: 502 .*; looking for the tag it may have made failed too \(GET \/v1\/tags failed: 500 internal.*\): look for a tag named "unfound", then delete it or adopt it with adoptId before running pulumi up again$/,
    );
    expect(err.message).not.toContain("check for the resource");
  });
});
