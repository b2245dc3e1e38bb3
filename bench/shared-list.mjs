// 2. Shared list reads: a refresh of 200 tags, as the engine drives it (reads in concurrent
// waves of 10), through the Tag implementation (which shares one list download between reads,
// src/resources/shared-list.ts) against a naive read that downloads the list for every tag.
// GET /v1/tags calls are counted by the emulator.
import {
  answered,
  clientFor,
  dist,
  now,
  num,
  ratio,
  require,
  stackConfig,
  startBenchEmulator,
  table,
} from "./support.mjs";

const TAGS = 200;
const WAVE = 10;

/** Reads every id in waves of `WAVE` concurrent reads; returns how many were found. */
async function refresh(ids, read) {
  let found = 0;
  for (let i = 0; i < ids.length; i += WAVE) {
    const wave = await Promise.all(ids.slice(i, i + WAVE).map(read));
    found += wave.filter(Boolean).length;
  }
  return found;
}

export async function benchSharedList() {
  const emulator = await startBenchEmulator();
  const naiveClient = clientFor(emulator);
  const entry = dist("provider.js");
  try {
    await emulator.admin.seed({ tags: TAGS });
    const ids = (await naiveClient.tags.list()).map((t) => String(t.id));
    if (ids.length !== TAGS)
      throw new Error(`expected ${TAGS} tags, the emulator has ${ids.length}`);

    // The size of one list answer, as sent on the wire.
    const { request, Agent } = require("undici");
    const raw = new Agent({ connect: { ca: emulator.caCert } });
    const res = await request(`${emulator.endpoint}/v1/tags`, {
      headers: { authorization: `ApiKey ${emulator.apiKey}` },
      dispatcher: raw,
    });
    const listBytes = (await res.body.arrayBuffer()).byteLength;
    await raw.close();

    entry.configure({ config: new Map(Object.entries(stackConfig(emulator))) });
    const tag = entry.onHost(dist("resources/tag/provider.js").operations);

    // Warm-up of both paths (JIT, the TLS connection of each client), then make the session's
    // list cache forget the list: a write through its client (here a delete of no tag, 404)
    // settles, and a list read before it is never reused after it.
    await naiveClient.tags.list();
    await tag.read(ids[0], {});
    await entry
      .configuredSession()
      .client.tags.delete(2_000_000_000)
      .catch(() => undefined);

    const count = () => answered(emulator, "GET", "/v1/tags");

    let c0 = count();
    let t0 = now();
    const naiveFound = await refresh(ids, async (id) => {
      const tags = await naiveClient.tags.list();
      return tags.some((t) => String(t.id) === id);
    });
    const naive = { ms: now() - t0, calls: count() - c0, found: naiveFound };

    c0 = count();
    t0 = now();
    const sharedFound = await refresh(ids, async (id) => {
      const result = await tag.read(id, {});
      return result.id === id;
    });
    const shared = { ms: now() - t0, calls: count() - c0, found: sharedFound };

    if (naive.found !== TAGS || shared.found !== TAGS) {
      throw new Error(`reads found ${naive.found} (naive) and ${shared.found} (shared) of ${TAGS}`);
    }
    table(
      `2. Shared list reads: refresh of ${TAGS} tags, waves of ${WAVE} concurrent reads`,
      [
        ["one list per read: GET /v1/tags calls", num(naive.calls), "1.00x"],
        ["one list per read: bytes of lists downloaded", num(naive.calls * listBytes), "1.00x"],
        ["one list per read: wall time", num(naive.ms, "ms"), "1.00x"],
        [
          "Tag implementation: GET /v1/tags calls",
          num(shared.calls),
          ratio(shared.calls, naive.calls),
        ],
        [
          "Tag implementation: bytes of lists downloaded",
          num(shared.calls * listBytes),
          ratio(shared.calls, naive.calls),
        ],
        ["Tag implementation: wall time", num(shared.ms, "ms"), ratio(shared.ms, naive.ms)],
        ["size of one list answer", num(listBytes, "bytes"), "—"],
      ],
      "baseline: each read downloads GET /v1/tags itself (same keep-alive client kind).\n" +
        "Tag implementation: dist/resources/tag/provider.js read(), configured like a host\n" +
        "(configure); concurrent reads join one request, a finished list is reused for\n" +
        "1.5 s (DEFAULT_REUSE_MS), so the call count grows if the refresh outlasts that.",
    );
  } finally {
    await entry.resetHost();
    await naiveClient.close();
    await emulator.close();
  }
}
