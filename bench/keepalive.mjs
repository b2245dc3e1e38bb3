// 1. Keep-alive: sequential GET /v1/images through one CloudInfraClient (one undici agent, one
// kept-alive TLS connection) against a fresh client per request (new TCP connection and full TLS
// handshake each time). Connections are counted from undici's diagnostics channel, which fires
// once per connection the client establishes; resumed TLS sessions are counted too.
import diagnostics from "node:diagnostics_channel";
import v8 from "node:v8";
import vm from "node:vm";
import { answered, clientFor, now, num, ratio, startBenchEmulator, table } from "./support.mjs";

const N = 300;
/** The two variants alternate in blocks, so a slow moment of the machine hits both. */
const BLOCK = 50;
/** Requests after which the garbage each variant leaves is collected and timed. */
const GC_N = 100;

/** `gc()` without starting Node with --expose-gc. */
function exposeGc() {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}

export async function benchKeepAlive() {
  const emulator = await startBenchEmulator();
  const connections = { opened: 0, resumed: 0 };
  const onConnected = ({ socket }) => {
    connections.opened++;
    if (typeof socket?.isSessionReused === "function" && socket.isSessionReused()) {
      connections.resumed++;
    }
  };
  diagnostics.subscribe("undici:client:connected", onConnected);
  const shared = clientFor(emulator);
  try {
    // Warm-up: JIT, the emulator's route, the CA parsing path.
    for (let i = 0; i < 20; i++) await shared.catalogue.listImages();
    for (let i = 0; i < 5; i++) {
      const fresh = clientFor(emulator);
      await fresh.catalogue.listImages();
      await fresh.close();
    }

    const result = {
      keepAlive: { ms: 0, opened: 0, resumed: 0 },
      fresh: { ms: 0, opened: 0, resumed: 0 },
      build: { ms: 0, opened: 0, resumed: 0 },
    };
    const measure = async (into, block) => {
      const before = { ...connections };
      const t0 = now();
      await block();
      into.ms += now() - t0;
      into.opened += connections.opened - before.opened;
      into.resumed += connections.resumed - before.resumed;
    };
    const served = answered(emulator, "GET", "/v1/images");
    for (let done = 0; done < N; done += BLOCK) {
      await measure(result.keepAlive, async () => {
        for (let i = 0; i < BLOCK; i++) await shared.catalogue.listImages();
      });
      await measure(result.fresh, async () => {
        for (let i = 0; i < BLOCK; i++) {
          const fresh = clientFor(emulator);
          await fresh.catalogue.listImages();
          await fresh.close();
        }
      });
      // The part of the fresh-client cost that is not the connection: build and close a client.
      await measure(result.build, async () => {
        for (let i = 0; i < BLOCK; i++) await clientFor(emulator).close();
      });
    }
    const servedNow = answered(emulator, "GET", "/v1/images") - served;

    // What a closed connection costs later: a full collection after GC_N requests of each kind.
    const gc = exposeGc();
    const gcAfter = async (requests) => {
      gc();
      await requests();
      const t0 = now();
      gc();
      return now() - t0;
    };
    const gcKeepAlive = await gcAfter(async () => {
      for (let i = 0; i < GC_N; i++) await shared.catalogue.listImages();
    });
    const gcFresh = await gcAfter(async () => {
      for (let i = 0; i < GC_N; i++) {
        const fresh = clientFor(emulator);
        await fresh.catalogue.listImages();
        await fresh.close();
      }
    });

    const rate = (r) => (N * 1000) / r.ms;
    const ka = result.keepAlive;
    const fr = result.fresh;
    table(
      `1. Keep-alive: ${N} sequential GET /v1/images`,
      [
        ["fresh client per request: requests/s", num(rate(fr)), "1.00x"],
        ["fresh client per request: ms/request", num(fr.ms / N), "1.00x"],
        ["fresh client per request: connections opened", num(fr.opened), "1.00x"],
        ["fresh client per request: TLS sessions resumed", num(fr.resumed), "—"],
        [
          "  of which building + closing the client: ms/request",
          num(result.build.ms / N),
          ratio(result.build.ms, fr.ms),
        ],
        ["one keep-alive client: requests/s", num(rate(ka)), ratio(rate(ka), rate(fr))],
        ["one keep-alive client: ms/request", num(ka.ms / N), ratio(ka.ms, fr.ms)],
        ["one keep-alive client: connections opened", num(ka.opened), ratio(ka.opened, fr.opened)],
        [`fresh client per request: full GC after ${GC_N} requests`, num(gcFresh, "ms"), "1.00x"],
        [
          `one keep-alive client: full GC after ${GC_N} requests`,
          num(gcKeepAlive, "ms"),
          ratio(gcKeepAlive, gcFresh),
        ],
        ["requests answered by the emulator (timed part)", num(servedNow), "—"],
      ],
      `baseline: a new CloudInfraClient per request (closed after it), the cost of no keep-alive.\n` +
        `connections: undici "undici:client:connected" events (the keep-alive client's one\n` +
        `connection was opened during the warm-up, so 0 is expected here).\n` +
        `variants alternate in blocks of ${BLOCK} requests. Full GC: the collection (gc()) right\n` +
        `after ${GC_N} more requests of each kind, not part of requests/s; both ends of every TLS\n` +
        "connection live in this process, so it includes the emulator's side.",
    );
  } finally {
    diagnostics.unsubscribe("undici:client:connected", onConnected);
    await shared.close();
    await emulator.close();
  }
}
