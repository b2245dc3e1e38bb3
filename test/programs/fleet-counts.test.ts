/**
 * What a fleet costs the API, through the local engine: the benchmark's fleet program
 * (bench/programs/fleet) with 10 servers, 10 keys, 10 groups, 10 attachments and 10 tags. Only
 * counts that do not depend on timing are asserted (requests by route, failed runs); the times
 * are the benchmark's (`node bench/run.mjs fleet rate-limit`).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../support/local-engine/engine.ts";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import {
  expectExit,
  expectNothingLeft,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "bench", "programs", "fleet");
const SERVERS = 10;
/**
 * One create per object, one list per group create (its answer holds no id), one read of each
 * server's final state, and the look at the servers before the creates.
 */
const MINIMUM = 5 * SERVERS + 10 + SERVERS + 1;
const LIFECYCLE = {
  provisioning: 500,
  deleting: 500,
  starting: 100,
  stopping: 100,
  rebooting: 100,
};

/** The requests the emulator answered while `run` ran, by `METHOD route`. */
async function requestsDuring(
  fx: ProgramFixture,
  run: () => Promise<RunResult>,
): Promise<{ result: RunResult; byRoute: Record<string, number>; total: number; refused: number }> {
  const before = fx.emulator.admin.requests(100_000).length;
  const result = await run();
  const requests = fx.emulator.admin.requests(100_000).slice(before);
  const byRoute: Record<string, number> = {};
  for (const r of requests) {
    if (r.status === 429) continue;
    const key = `${r.method} ${r.route ?? r.path}`;
    byRoute[key] = (byRoute[key] ?? 0) + 1;
  }
  const refused = requests.filter((r) => r.status === 429).length;
  return { result, byRoute, total: requests.length - refused, refused };
}

describe(`a fleet of ${SERVERS} servers`, () => {
  let fx: ProgramFixture;
  beforeAll(async () => {
    fx = await startProgramFixture(PROJECT, {
      emulator: { lifecycle: { durations: LIFECYCLE }, requestLogSize: 100_000 },
      config: { "fleet:size": String(SERVERS) },
      parallel: 16,
    });
  }, 60_000);
  afterAll(async () => fx?.close());

  it("is made with at most 1.25 × the minimum of requests, and no server polled on its own", async () => {
    const up = await requestsDuring(fx, () => fx.engine.up());
    expectExit(up.result, EXIT_OK);
    for (const route of [
      "POST /v1/keys",
      "POST /v1/servers",
      "POST /v1/firewall/groups",
      "POST /v1/firewall/groups/:id/servers/:sid",
      "POST /v1/tags",
    ]) {
      expect(up.byRoute[route], route).toBe(SERVERS);
    }
    expect(up.total).toBeLessThanOrEqual(Math.floor(MINIMUM * 1.25));
    // Waiting servers share a list per interval: the old one-by-one polls cost 9 each.
    expect(up.byRoute["GET /v1/servers/:id"] ?? 0).toBeLessThanOrEqual(1);
  }, 120_000);

  it("is refreshed with one list request per kind", async () => {
    const refresh = await requestsDuring(fx, () => fx.engine.refresh());
    expectExit(refresh.result, EXIT_OK);
    expect(refresh.result.changes).toEqual([]);
    expect(refresh.byRoute).toEqual({
      "GET /v1/servers": 1,
      "GET /v1/keys": 1,
      "GET /v1/firewall/groups": 1,
      "GET /v1/tags": 1,
    });
  }, 120_000);

  it("is destroyed polling no server on its own", async () => {
    const destroy = await requestsDuring(fx, () => fx.engine.destroy());
    expectExit(destroy.result, EXIT_OK);
    expect(destroy.byRoute["POST /v1/servers/:id/management"]).toBe(SERVERS);
    expect(destroy.byRoute["GET /v1/servers/:id"] ?? 0).toBeLessThanOrEqual(1);
    await expectNothingLeft(fx.client);
  }, 120_000);
});

describe(`a fleet of ${SERVERS} servers under a 10 req/s limit (burst 10)`, () => {
  let fx: ProgramFixture;
  beforeAll(async () => {
    fx = await startProgramFixture(PROJECT, {
      emulator: {
        lifecycle: { durations: LIFECYCLE },
        requestLogSize: 100_000,
        rateLimit: { enabled: true, rate_per_second: 10, burst: 10 },
      },
      config: { "fleet:size": String(SERVERS) },
      parallel: 16,
    });
  }, 60_000);
  afterAll(async () => fx?.close());

  it("is made and destroyed without a failure: 429s are waited out, and few are needed", async () => {
    const up = await requestsDuring(fx, () => fx.engine.up());
    expectExit(up.result, EXIT_OK);
    expect(up.byRoute["POST /v1/servers"]).toBe(SERVERS);
    const destroy = await requestsDuring(fx, () => fx.engine.destroy());
    expectExit(destroy.result, EXIT_OK);
    // The client paces itself by the RateLimit headers: a 429 is the exception.
    expect(up.refused + destroy.refused).toBeLessThanOrEqual(10);
    fx.emulator.admin.setRateLimit({ enabled: false });
    await expectNothingLeft(fx.client);
  }, 180_000);
});
