// `npm run bench`: builds dist/ (the npm script does), then prints the figures of every
// benchmark. Figures, not pass/fail: compare ratios measured in the same run, and the counts
// (requests, polls, connections, bytes), which do not depend on timing. Only 127.0.0.1 is used.
//
//   node bench/run.mjs [name ...]   run only some: keepalive shared-list server-wait host durable
//                                   state-size manifest-scale wrong-keys hostile inventory drift-scale
//                                   fleet tags rate-limit (whole programs through the local engine)
//
// Each benchmark runs in a Node process of its own: garbage one leaves behind must not stall the
// next (300 closed TLS connections cost a ~0.5 s garbage collection later, which would land in
// whatever is measured then).
import { spawn } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { dist } from "./support.mjs";

const BENCHMARKS = {
  keepalive: ["./keepalive.mjs", "benchKeepAlive"],
  "shared-list": ["./shared-list.mjs", "benchSharedList"],
  "server-wait": ["./server-wait.mjs", "benchServerWait"],
  host: ["./provider-host.mjs", "benchProviderHost"],
  durable: ["./durable-write.mjs", "benchDurableWrite"],
  "state-size": ["./state-size.mjs", "benchStateSize"],
  "manifest-scale": ["./manifest-scale.mjs", "benchManifestScale", 300_000],
  "wrong-keys": ["./wrong-keys.mjs", "benchWrongKeys"],
  inventory: ["./inventory.mjs", "benchInventory"],
  "drift-scale": ["./drift-scale.mjs", "benchDriftScale"],
  fleet: ["./fleet.mjs", "benchFleet", 600_000],
  tags: ["./fleet.mjs", "benchTags", 600_000],
  "rate-limit": ["./fleet.mjs", "benchRateLimit", 1_200_000],
  hostile: ["./hostile.mjs", "benchHostile", 1_200_000],
};

/** A benchmark's time limit, unless its entry sets one (the whole-program ones take minutes). */
const BENCHMARK_TIMEOUT_MS = 90_000;

/** In a child: runs one benchmark, then makes sure nothing keeps the process alive. */
async function child(name) {
  const [file, exported] = BENCHMARKS[name];
  const started = performance.now();
  await (await import(file))[exported]();
  process.stdout.write(`  (${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  // Everything is closed by now, so the process ends by itself. If something was left open (a
  // socket, a child process), say what and end anyway.
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== "Timeout");
    process.stderr.write(`bench ${name}: did not exit by itself; still open: ${open.join(", ")}\n`);
    process.exit(1);
  }, 3000).unref();
}

/** In the parent: runs `name` in a child process, output passed through; resolves to its exit code. */
function runChild(name) {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), "--child", name], {
      stdio: "inherit",
    });
    const limit = BENCHMARKS[name][2] ?? BENCHMARK_TIMEOUT_MS;
    const timer = setTimeout(() => {
      process.stderr.write(`bench ${name}: still running after ${limit / 1000} s\n`);
      proc.kill("SIGKILL");
    }, limit);
    proc.once("error", (err) => {
      clearTimeout(timer);
      process.stderr.write(`bench ${name}: ${err.message}\n`);
      resolve(1);
    });
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

async function parent(wanted) {
  for (const name of wanted) {
    if (!(name in BENCHMARKS)) {
      process.stderr.write(
        `unknown benchmark ${name}; known: ${Object.keys(BENCHMARKS).join(" ")}\n`,
      );
      process.exitCode = 2;
      return;
    }
  }
  const cpus = os.cpus();
  const { PACKAGE_VERSION } = dist("api/version.js");
  process.stdout.write(
    [
      `# pulumi-cloudinfra ${PACKAGE_VERSION} benchmarks`,
      "",
      `node ${process.version} (${process.platform} ${process.arch}), ` +
        `${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? "unknown"}), ` +
        `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
      `started ${new Date().toISOString()}`,
      "Figures are from one run on this machine. Timings are noisy on a shared machine: compare",
      "the ratios within this run, and trust the counts (requests, polls, connections, bytes).",
      "",
    ].join("\n"),
  );
  const started = performance.now();
  const failed = [];
  for (const name of Object.keys(BENCHMARKS)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    const code = await runChild(name);
    if (code !== 0) {
      failed.push(name);
      process.stdout.write(`\n## ${name}: FAILED (exit code ${code}; details on stderr)\n`);
    }
  }
  process.stdout.write(
    `\nall benchmarks: ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (failed.length > 0 ? `; failed: ${failed.join(", ")}` : "") +
      "\n",
  );
  process.exitCode = failed.length > 0 ? 1 : 0;
}

const args = process.argv.slice(2);
if (args[0] === "--child") await child(args[1]);
else await parent(args);
