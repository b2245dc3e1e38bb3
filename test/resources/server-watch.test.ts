/**
 * The servers one provider process waits for share their polls (src/resources/server/watch.ts):
 * what a fleet's `up` costs in requests, and how soon a wait notices a change.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NotFoundError } from "../../src/api/errors";
import type { Server } from "../../src/api/schemas/servers";
import { ServerWatch, waitForServerStatus } from "../../src/resources/server/watch";

type Script = [at: number, status: string][];

/**
 * Servers whose statuses follow scripts (a status from a time on; `"gone"` when deleted, and no
 * entry yet when not made), with `status_date` the time of the status, as the service sets it.
 * Every poll is recorded with its time and kind.
 */
function scriptedService(scripts: Record<number, Script>, latencyMs = 0) {
  const polls: { at: number; kind: "list" | "get" }[] = [];
  const stateOf = (id: number, now: number): Server | undefined => {
    let current: [number, string] | undefined;
    for (const entry of scripts[id] ?? []) if (now >= entry[0]) current = entry;
    if (current === undefined || current[1] === "gone") return undefined;
    const at = new Date(current[0]).toISOString();
    return {
      id,
      unique_id: 1000 + id,
      created_at: at,
      updated_at: at,
      ip: null,
      user_id: 1,
      account_id: 1,
      firewall_enabled: false,
      data: [],
      plan_id: 1,
      status: current[1],
      status_date: at,
      user_defined_name: `web-${id}`,
      security_groups: [],
      tags: [],
    } as Server;
  };
  const answer = async <T>(kind: "list" | "get", read: (now: number) => T): Promise<T> => {
    const sent = Date.now();
    polls.push({ at: sent, kind });
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return read(sent);
  };
  const watch = new ServerWatch({
    list: () =>
      answer("list", (now) =>
        Object.keys(scripts)
          .map((id) => stateOf(Number(id), now))
          .filter((s): s is Server => s !== undefined),
      ),
    get: (id) =>
      answer("get", (now) => {
        const server = stateOf(Number(id), now);
        if (server === undefined) {
          throw new NotFoundError({ status: 404, method: "GET", path: `/v1/servers/${id}` });
        }
        return server;
      }),
  });
  return { watch, polls, stateOf };
}

/** Waits for server `id` to run, as a create does right after its answer. */
function waitForCreate(watch: ServerWatch, id: number, initial: Server | undefined) {
  return waitForServerStatus(watch, id, {
    action: "create",
    target: "running",
    deadlineAt: Date.now() + 600_000,
    initial,
  }).then((server) => ({ server, at: Date.now() }));
}

describe("ServerWatch", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("polls 40 servers that wait together once per interval, through the list", async () => {
    const scripts: Record<number, Script> = {};
    for (let id = 1; id <= 40; id++) {
      scripts[id] = [
        [0, "provisioning"],
        [2_000, "running"],
      ];
    }
    const alone = scriptedService({ 1: scripts[1] ?? [] });
    const one = waitForCreate(alone.watch, 1, alone.stateOf(1, 0));
    await vi.advanceTimersByTimeAsync(3_000);
    await one;

    vi.setSystemTime(0);
    const fleet = scriptedService(scripts);
    const waits = Object.keys(scripts).map((id) =>
      waitForCreate(fleet.watch, Number(id), fleet.stateOf(Number(id), 0)),
    );
    await vi.advanceTimersByTimeAsync(3_000);
    const done = await Promise.all(waits);
    expect(done.every((d) => d.server.status === "running")).toBe(true);
    // As many requests for 40 servers as for one: one list per interval answers them all.
    expect(fleet.polls).toHaveLength(alone.polls.length);
    expect(fleet.polls.every((p) => p.kind === "list")).toBe(true);
    expect(alone.polls.every((p) => p.kind === "get")).toBe(true);
    expect(alone.polls.length).toBeLessThanOrEqual(9);
  });

  it("polls a transition it has seen end at the moment it should end again", async () => {
    const { watch, polls, stateOf } = scriptedService({
      1: [
        [0, "provisioning"],
        [2_100, "running"],
      ],
      2: [
        [10_000, "provisioning"],
        [12_100, "running"],
      ],
    });
    const first = waitForCreate(watch, 1, stateOf(1, 0));
    await vi.advanceTimersByTimeAsync(3_000);
    const firstSeen = (await first).at;
    const firstPolls = polls.length;
    // The interval's rule sees the first within one interval (250 ms).
    expect(firstSeen - 2_100).toBeGreaterThan(0);
    expect(firstSeen - 2_100).toBeLessThanOrEqual(250);

    vi.setSystemTime(10_000);
    const second = waitForCreate(watch, 2, stateOf(2, 10_000));
    await vi.advanceTimersByTimeAsync(3_000);
    const { at, server } = await second;
    expect(server.status).toBe("running");
    expect(at).toBe(12_100);
    expect(polls.length - firstPolls).toBeLessThanOrEqual(firstPolls);
  });

  it("never answers a wait with a poll sent before it began", async () => {
    // Server 2 is made at 260 ms, while the list asked for at 250 ms (for server 1) is out: that
    // list does not show it, and must not be taken to say it is gone.
    const { watch, stateOf } = scriptedService(
      {
        1: [
          [0, "provisioning"],
          [1_000, "running"],
        ],
        2: [
          [260, "provisioning"],
          [1_200, "running"],
        ],
      },
      40,
    );
    const first = waitForCreate(watch, 1, stateOf(1, 0));
    await vi.advanceTimersByTimeAsync(260);
    const second = waitForCreate(watch, 2, stateOf(2, 260));
    await vi.advanceTimersByTimeAsync(3_000);
    expect((await first).server.status).toBe("running");
    expect((await second).server.status).toBe("running");
  });

  it("expects a deletion from its own clock, from the quickest of a wave, and is never early", async () => {
    // The service applies a delete action 10 ms after it was sent and answers 10 ms later; the
    // server is gone 2.1 s after that. Three deletions sent 60 ms apart share their polls, then a
    // fourth comes alone.
    const gone = (sentAt: number): Script => [
      [0, "running"],
      [sentAt + 10, "deleting"],
      [sentAt + 2_110, "gone"],
    ];
    const { watch, polls, stateOf } = scriptedService({
      1: gone(0),
      2: gone(60),
      3: gone(120),
      4: gone(10_000),
    });
    const deleting = (id: number, sentAt: number) => {
      const initial = stateOf(id, sentAt);
      return async () => {
        await vi.advanceTimersByTimeAsync(sentAt + 20 - Date.now());
        const done = waitForServerStatus(watch, id, {
          action: "delete",
          target: "gone",
          deadlineAt: Date.now() + 600_000,
          initial,
          sentAt,
        }).then(() => Date.now());
        return { done };
      };
    };
    const wave = [deleting(1, 0), deleting(2, 60), deleting(3, 120)];
    const waits: Promise<number>[] = [];
    for (const start of wave) waits.push((await start()).done);
    await vi.advanceTimersByTimeAsync(3_000);
    const seen = await Promise.all(waits);
    expect(seen.map((at, i) => at - (i * 60 + 2_110)).every((lag) => lag >= 0)).toBe(true);
    const wavePolls = polls.length;

    const alone = (await deleting(4, 10_000)()).done;
    await vi.advanceTimersByTimeAsync(3_000);
    const at = await alone;
    expect(at).toBeGreaterThanOrEqual(12_110);
    // The wave's quickest lag (40 ms, the third deletion's), not one interval's (up to 250 ms).
    expect(at - 12_110).toBeLessThanOrEqual(40);
    expect(polls.length - wavePolls).toBeLessThanOrEqual(wavePolls);
  });
});
