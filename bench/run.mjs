// `npm run bench`: builds dist/ (the npm script does), then prints the figures of every
// benchmark. Figures, not pass/fail: compare ratios measured in the same run, and the counts
// (requests, polls, connections, bytes), which do not depend on timing. Only 127.0.0.1 is used.
//
//   node bench/run.mjs [name ...]   run only some: keepalive shared-list server-wait host durable
import os from "node:os";
import { benchDurableWrite } from "./durable-write.mjs";
import { benchKeepAlive } from "./keepalive.mjs";
import { benchProviderHost } from "./provider-host.mjs";
import { benchServerWait } from "./server-wait.mjs";
import { benchSharedList } from "./shared-list.mjs";
import { dist } from "./support.mjs";

const BENCHMARKS = {
  keepalive: benchKeepAlive,
  "shared-list": benchSharedList,
  "server-wait": benchServerWait,
  host: benchProviderHost,
  durable: benchDurableWrite,
};

/** The whole run must stay bounded even if something hangs: give up well after ~2 minutes. */
const WATCHDOG_MS = 240_000;

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in BENCHMARKS)) {
    process.stderr.write(
      `unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(" ")}\n`,
    );
    process.exit(2);
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`bench: still running after ${WATCHDOG_MS / 1000} s; giving up\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

const cpus = os.cpus();
const { PACKAGE_VERSION } = dist("api/version.js");
process.stdout.write(
  [
    `# pulumi-cloudinfra ${PACKAGE_VERSION} benchmarks`,
    "",
    `node ${process.version} (${process.platform} ${process.arch}), ` +
      `${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? "unknown"}), ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM`,
    `started ${new Date().toISOString()}`,
    "Figures are from one run on this machine. Timings are noisy on a shared machine: compare",
    "the ratios within this run, and trust the counts (requests, polls, connections, bytes).",
    "",
  ].join("\n"),
);

const started = performance.now();
let failed = 0;
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const t0 = performance.now();
  try {
    await run();
    process.stdout.write(`  (${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`\n## ${name}: FAILED\n\n${err?.stack ?? err}\n`);
  }
}
process.stdout.write(
  `\nall benchmarks: ${((performance.now() - started) / 1000).toFixed(1)} s` +
    (failed > 0 ? `, ${failed} failed` : "") +
    "\n",
);
process.exitCode = failed > 0 ? 1 : 0;
// Everything is closed by now, so the process ends by itself. If something was left open (a
// socket, a child process), say what and end anyway.
setTimeout(() => {
  const open = process.getActiveResourcesInfo().filter((r) => r !== "Timeout");
  process.stderr.write(
    `bench: the process did not exit by itself; still open: ${open.join(", ")}\n`,
  );
  process.exit(process.exitCode || 1);
}, 3000).unref();
