import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { onHost, resetHost } from "../../src/provider";
import { WATCH } from "../../src/resources/server/watch";
import { SharedLists } from "../../src/resources/shared-list";
import { operations as tagOperations } from "../../src/resources/tag/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const tag = onHost(tagOperations);

/** A list source whose answers the test releases one by one, counting requests. */
function controlledSource<T>() {
  const pending: { resolve: (items: T[]) => void; reject: (err: Error) => void }[] = [];
  return {
    get requests() {
      return pending.length;
    },
    fetch: () =>
      new Promise<readonly T[]>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
    answer(index: number, items: T[]) {
      pending[index]?.resolve(items);
    },
    fail(index: number, err: Error) {
      pending[index]?.reject(err);
    },
  };
}

/** A client's write events, which the test fires itself. */
function writeEvents() {
  const listeners = new Set<() => void>();
  return {
    onWriteSettled(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    settle() {
      for (const listener of listeners) listener();
    },
  };
}

describe("SharedLists", () => {
  let clock = 0;
  let writes: ReturnType<typeof writeEvents>;
  let lists: SharedLists;
  beforeEach(() => {
    clock = 0;
    writes = writeEvents();
    lists = new SharedLists(writes, { reuseMs: 1000, now: () => clock });
  });

  it("serves concurrent reads of one list with one request", async () => {
    const source = controlledSource<number>();
    const reads = Array.from({ length: 50 }, () => lists.read("tags", source.fetch));
    expect(source.requests).toBe(1);
    source.answer(0, [1, 2]);
    const results = await Promise.all(reads);
    expect(results.every((r) => r.length === 2)).toBe(true);
  });

  it("reuses a finished list within the window and asks again after it", async () => {
    const source = controlledSource<number>();
    const first = lists.read("tags", source.fetch);
    source.answer(0, [1]);
    await first;
    clock = 999;
    expect(await lists.read("tags", source.fetch)).toEqual([1]);
    expect(source.requests).toBe(1);
    clock = 1000;
    const later = lists.read("tags", source.fetch);
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2]);
    expect(await later).toEqual([1, 2]);
  });

  it("keeps lists of other kinds and other owners apart", async () => {
    const source = controlledSource<string>();
    const tags = lists.read("tags", source.fetch);
    const roles = lists.read("roles", source.fetch);
    const other = new SharedLists(writeEvents(), { reuseMs: 1000, now: () => clock });
    const otherClient = other.read("tags", source.fetch);
    expect(source.requests).toBe(3);
    source.answer(0, ["tag"]);
    source.answer(1, ["role"]);
    source.answer(2, ["other"]);
    expect(await Promise.all([tags, roles, otherClient])).toEqual([["tag"], ["role"], ["other"]]);
  });

  it("asks again after a write settled, even with a request still in flight", async () => {
    const source = controlledSource<string>();
    const before = lists.read("tags", source.fetch);
    // A write lands while the list is out: its answer may predate the write.
    writes.settle();
    const after = lists.read("tags", source.fetch);
    expect(source.requests).toBe(2);
    source.answer(0, ["old"]);
    source.answer(1, ["new"]);
    expect(await before).toEqual(["old"]);
    expect(await after).toEqual(["new"]);
    // The answer that predates the write is not reused either.
    expect(await lists.read("tags", source.fetch)).toEqual(["new"]);
    expect(source.requests).toBe(2);
  });

  // Issue 24: right after parallel creates, a Read showed a server `provisioning` from a list
  // finished moments before, though its create's own poll had seen it `running`.
  it("serves no list of servers finished before the watch saw a server through its own poll", async () => {
    const provisioning = { id: 7, status: "provisioning" };
    const running = { id: 7, status: "running" };
    const lists = new SharedLists(undefined, { reuseMs: 1000, now: () => clock });
    let listed = 0;
    const list = async () => {
      listed++;
      return listed === 1 ? [provisioning] : [running];
    };
    const client = { servers: { get: async () => running, list } };
    const watch = WATCH.make({ client, lists } as never);
    const find = () => lists.find("servers", list, (s: { id: number }) => s.id === 7);
    expect(await find()).toEqual(provisioning);
    // The create's wait polls its one server on its own and sees it running.
    expect(await watch.read(7)).toEqual(running);
    // Within the reuse window, yet the read is not older than what the create saw.
    expect(await find()).toEqual(running);
    expect(listed).toBe(2);
  });

  it("hands a failure to every waiting reader and never reuses it", async () => {
    const source = controlledSource<number>();
    const reads = [1, 2, 3].map(() => lists.read("tags", source.fetch));
    source.fail(0, new Error("503 unavailable"));
    for (const read of reads) await expect(read).rejects.toThrow("503 unavailable");
    const retry = lists.read("tags", source.fetch);
    expect(source.requests).toBe(2);
    source.answer(1, [7]);
    expect(await retry).toEqual([7]);
  });

  it("finds an item in a shared list without asking again", async () => {
    const source = controlledSource<number>();
    const first = lists.read("tags", source.fetch);
    source.answer(0, [1, 2]);
    await first;
    expect(await lists.find("tags", source.fetch, (n) => n === 2)).toBe(2);
    expect(source.requests).toBe(1);
  });

  it("concludes that an item is missing only from a list asked for after the lookup began", async () => {
    const source = controlledSource<number>();
    const first = lists.read("tags", source.fetch);
    source.answer(0, [1]);
    await first;
    // Item 2 was made elsewhere after that list: the reused list misses it, a new one has it.
    const lookups = [2, 2, 3].map((n) => lists.find("tags", source.fetch, (i) => i === n));
    await Promise.resolve();
    await Promise.resolve();
    // Every lookup that missed joins the one new request.
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2]);
    expect(await Promise.all(lookups)).toEqual([2, 2, undefined]);
    expect(source.requests).toBe(2);
  });

  it("does not ask twice when the list it read was already asked for after the lookup began", async () => {
    const source = controlledSource<number>();
    const lookup = lists.find("tags", source.fetch, (n) => n === 9);
    source.answer(0, [1]);
    expect(await lookup).toBeUndefined();
    expect(source.requests).toBe(1);
  });

  it("keeps the newer list when an older request finishes last", async () => {
    const source = controlledSource<number>();
    const old = lists.read("tags", source.fetch);
    const lookup = lists.find("tags", source.fetch, (n) => n === 2);
    await Promise.resolve();
    source.answer(0, [1]);
    await old;
    await Promise.resolve();
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2]);
    expect(await lookup).toBe(2);
    expect(await lists.read("tags", source.fetch)).toEqual([1, 2]);
    expect(source.requests).toBe(2);
  });

  it("serves no list read before a write of its client settled", async () => {
    const source = controlledSource<number>();
    const first = lists.read("tags", source.fetch);
    source.answer(0, [1]);
    await first;
    expect(await lists.read("tags", source.fetch)).toEqual([1]);
    writes.settle();
    const after = lists.read("tags", source.fetch);
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2]);
    expect(await after).toEqual([1, 2]);
  });

  it("gives a create's look before the latest list of the moment, whatever was written since", async () => {
    const source = controlledSource<number>();
    const first = lists.recent("tags", source.fetch);
    writes.settle();
    // Creates of the same moment share the one request, written or not.
    const second = lists.recent("tags", source.fetch);
    expect(source.requests).toBe(1);
    source.answer(0, [1]);
    expect(await Promise.all([first, second])).toEqual([[1], [1]]);
    clock = 999;
    expect(await lists.recent("tags", source.fetch)).toEqual([1]);
    clock = 1000;
    const later = lists.recent("tags", source.fetch);
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2]);
    expect(await later).toEqual([1, 2]);
  });

  it("finds what creates that settled together made in one list asked for after them", async () => {
    const source = controlledSource<number>();
    const before = lists.read("tags", source.fetch);
    source.answer(0, [1]);
    await before;
    // Two creates settle; each marks the moment, and a list asked for after both serves both.
    const firstMark = lists.mark();
    const secondMark = lists.mark();
    const firstFind = lists.since("tags", source.fetch, firstMark);
    expect(source.requests).toBe(2);
    writes.settle();
    const secondFind = lists.since("tags", source.fetch, secondMark);
    expect(source.requests).toBe(2);
    source.answer(1, [1, 2, 3]);
    expect(await Promise.all([firstFind, secondFind])).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    // A mark taken after that list was asked for needs a new one.
    const laterFind = lists.since("tags", source.fetch, lists.mark());
    expect(source.requests).toBe(3);
    source.answer(2, [1, 2, 3, 4]);
    expect(await laterFind).toEqual([1, 2, 3, 4]);
  });
});

describe("Tag reads against the emulator", () => {
  let emulator: TestEmulator;
  let tagIds: string[];

  async function listCalls(): Promise<number> {
    const { body } = await emulator.call("GET", "/_emulator/counters");
    const routes = (body as { routes: { method: string; route: string; total: number }[] }).routes;
    return routes.find((r) => r.method === "GET" && r.route === "/v1/tags")?.total ?? 0;
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
    await emulator.call("POST", "/_emulator/seed", { json: { servers: 1, tags: 100 } });
    const { body } = await emulator.call("GET", "/v1/tags");
    tagIds = (body as { id: number }[]).map((t) => String(t.id));
    expect(tagIds).toHaveLength(100);
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  beforeEach(async () => {
    // A new session is a new client, which shares nothing with the previous one: each case
    // starts like a new provider host.
    await newSessionFor(emulator);
    await emulator.call("DELETE", "/_emulator/requests");
  });

  it("refreshes 100 tags at once with one list request", async () => {
    const results = await Promise.all(tagIds.map((id) => tag.read(id, { serverIds: [] })));
    expect(results.map((r) => r.id)).toEqual(tagIds);
    expect(results[0]?.props?.["serverIds"]).toHaveLength(1);
    expect(await listCalls()).toBeLessThanOrEqual(1);
  });

  it("refreshes 100 tags in waves of 10, as the engine's parallelism does, with at most 2 list requests", async () => {
    for (let wave = 0; wave < 10; wave++) {
      const ids = tagIds.slice(wave * 10, wave * 10 + 10);
      const results = await Promise.all(ids.map((id) => tag.read(id, {})));
      expect(results.map((r) => r.id)).toEqual(ids);
    }
    expect(await listCalls()).toBeLessThanOrEqual(2);
    expect(await listCalls()).toBeGreaterThanOrEqual(1);
  });

  it("reads a tag made elsewhere moments after a read as present, never as gone", async () => {
    await tag.read(tagIds[0] ?? "", {});
    // Made outside this process inside the reuse window: the shared list predates it.
    const { body } = await emulator.call("POST", "/v1/tags", {
      json: { name: "made-elsewhere", color: "#123456" },
    });
    const id = String((body as { id: number }).id);
    const read = await tag.read(id, {});
    expect(read.id).toBe(id);
    expect(read.props).toMatchObject({ name: "made-elsewhere", color: "#123456" });
    expect(await listCalls()).toBe(2);
    // A tag that really is gone reads as gone, from a list asked for after the read began.
    expect(await tag.read("999999", {})).toEqual({});
    expect(await listCalls()).toBe(3);
  });

  it("reads its own write back: an update through this process is seen by the next read", async () => {
    const id = tagIds[0] ?? "";
    await tag.read(id, {});
    await tag.update(id, {}, { name: "renamed-here", color: "#abcdef" });
    const after = await tag.read(id, {});
    expect(after.props).toMatchObject({ name: "renamed-here", color: "#abcdef" });
    expect(await listCalls()).toBe(2);
  });
});
