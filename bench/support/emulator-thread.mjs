// An emulator on a worker thread of its own, for the whole-program benchmarks (fleet.mjs). The
// service a program deploys to runs elsewhere, never on the engine's event loop: in this process
// the local engine plays the engine, and an emulator beside it on the same thread would add its
// TLS and request handling to every engine round trip (a Check measured ~9 ms there against
// ~1.4 ms alone, `npm run bench host`).
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { startBenchEmulator } from "../support.mjs";

/**
 * Starts an emulator with `options` (those of `startBenchEmulator`) on a worker thread. Resolves to
 * what a benchmark reads of it: `endpoint`, `apiKey`, `caCert`, `admin.requests(n)` (a promise of
 * the request log) and `close()`.
 */
export function startEmulatorThread(options) {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  let nextId = 0;
  const waiting = new Map();
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.on("message", (message) => {
      if (message.type === "started") {
        const call = (op, arg) =>
          new Promise((ok, fail) => {
            const id = nextId++;
            waiting.set(id, { ok, fail });
            worker.postMessage({ id, op, arg });
          });
        resolve({
          endpoint: message.endpoint,
          apiKey: message.apiKey,
          caCert: message.caCert,
          admin: { requests: (n) => call("requests", n) },
          close: async () => {
            await call("close");
            await worker.terminate();
          },
        });
        return;
      }
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) pending?.fail(new Error(message.error));
      else pending?.ok(message.value);
    });
  });
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  const emulator = await startBenchEmulator(workerData);
  port.on("message", async ({ id, op, arg }) => {
    try {
      const value = op === "requests" ? emulator.admin.requests(arg) : await emulator.close();
      port.postMessage({ id, value });
    } catch (err) {
      port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
    }
  });
  const { endpoint, apiKey, caCert } = emulator;
  port.postMessage({ type: "started", endpoint, apiKey, caCert });
}
