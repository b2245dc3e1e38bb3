// 3. Waiting for a server: create a server whose provisioning takes D through the Server
// implementation (its shared watch: no poll at once, then every clamp(elapsed × 0.1, 250 ms,
// 10 s), and a transition seen once polled when it should end; see
// src/resources/server/watch.ts) and, at the same moment, another with the same D polled every
// 100 ms (the baseline). Counted: GET /v1/servers/:id polls of each server (emulator request
// log) and the detection lag, from the emulator's status change (the server's status_date, set
// when the transition completes) to the moment the wait returned.
import {
  clientFor,
  dist,
  num,
  ratio,
  sleep,
  stackConfig,
  startBenchEmulator,
  table,
} from "./support.mjs";

/**
 * The provisioning times D, in ms: 0.5, 2 and 8 s; BENCH_SERVER_WAIT_DURATIONS (comma-separated ms)
 * picks others, e.g. one short D for the smoke test.
 */
const DURATIONS_MS = durations(process.env.BENCH_SERVER_WAIT_DURATIONS ?? "500,2000,8000");

function durations(text) {
  const list = text.split(",").map((part) => Number(part.trim()));
  if (list.some((d) => !Number.isInteger(d) || d <= 0)) {
    throw new Error(
      `BENCH_SERVER_WAIT_DURATIONS must be provisioning times in ms, whole and above 0, comma-separated (e.g. 500,2000); got ${JSON.stringify(text)}`,
    );
  }
  return list;
}
const BASELINE_INTERVAL_MS = 100;
const ARGS = { planId: 1, image: "ubuntu-24.04" };

function pollsOf(emulator, serverId) {
  const path = `/v1/servers/${serverId}`;
  return emulator.admin.requests(1000).filter((r) => r.method === "GET" && r.path === path).length;
}

/** The naive wait: create, then GET every 100 ms until running. */
async function baselineWait(client, body) {
  const [created] = await client.servers.create(body);
  for (;;) {
    const server = await client.servers.get(created.id);
    if (server.status === "running") return { id: created.id, server, at: Date.now() };
    if (server.status !== "provisioning") throw new Error(`baseline server is ${server.status}`);
    await sleep(BASELINE_INTERVAL_MS);
  }
}

/** Through the implementation, as a host's Check then Create would run it. */
async function implementationWait(server, name) {
  const checked = await server.check({}, { name, ...ARGS });
  if (checked.failures?.length) throw new Error(JSON.stringify(checked.failures));
  const created = await server.create(checked.inputs);
  const at = Date.now();
  return { id: created.id, status: created.outs.status, statusDate: created.outs.statusDate, at };
}

export async function benchServerWait() {
  const emulator = await startBenchEmulator({ requestLogSize: 1000 });
  const client = clientFor(emulator);
  const entry = dist("provider.js");
  try {
    entry.configure({ config: new Map(Object.entries(stackConfig(emulator))) });
    const server = entry.onHost(dist("resources/server/provider.js").operations);
    const { ServerInputsSchema, toApi } = dist("resources/server/model.js");
    const { pollIntervalMs } = dist("resources/server/watch.js");

    // Warm-up: one quick create both ways.
    emulator.admin.setLifecycle({ mode: "auto", durations: { provisioning: 50 } });
    await Promise.all([
      implementationWait(server, "bench-warm-impl"),
      baselineWait(client, toApi(ServerInputsSchema.parse({ name: "bench-warm-base", ...ARGS }))),
    ]);

    const rows = [];
    for (const d of DURATIONS_MS) {
      emulator.admin.setLifecycle({ durations: { provisioning: d } });
      const [impl, base] = await Promise.all([
        implementationWait(server, `bench-impl-${d}`),
        baselineWait(client, toApi(ServerInputsSchema.parse({ name: `bench-base-${d}`, ...ARGS }))),
      ]);
      if (impl.status !== "running") throw new Error(`server ${impl.id} is ${impl.status}`);
      const implLag = impl.at - Date.parse(impl.statusDate);
      const baseLag = base.at - Date.parse(base.server.status_date);
      const implPolls = pollsOf(emulator, impl.id);
      const basePolls = pollsOf(emulator, base.id);
      const label = `D = ${num(d / 1000)} s`;
      rows.push(
        [`${label}: polls, every ${BASELINE_INTERVAL_MS} ms`, num(basePolls), "1.00x"],
        [`${label}: polls, Server implementation`, num(implPolls), ratio(implPolls, basePolls)],
        [`${label}: detection lag, every ${BASELINE_INTERVAL_MS} ms`, num(baseLag, "ms"), "1.00x"],
        [
          `${label}: detection lag, Server implementation`,
          num(implLag, "ms"),
          ratio(implLag, baseLag),
        ],
        [
          `${label}: implementation's poll interval at D (lag bound)`,
          num(pollIntervalMs(d), "ms"),
          ratio(pollIntervalMs(d), BASELINE_INTERVAL_MS),
        ],
      );
    }
    table(
      "3. Waiting for a server to finish provisioning (D = provisioning time)",
      rows,
      `baseline: GET /v1/servers/:id every ${BASELINE_INTERVAL_MS} ms, run at the same time on a second server\n` +
        "with the same D (its polls include one right after the create; the implementation sends none then). Lag: time from the\n" +
        "emulator's status change (status_date) to the wait returning; it includes the last poll's\n" +
        "round trip, and for the implementation the rest of create (mapping the outputs).",
    );
  } finally {
    await entry.resetHost();
    await client.close();
    await emulator.close();
  }
}
