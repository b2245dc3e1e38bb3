// Fleets through the local engine (test/support/local-engine): whole programs run as `pulumi up`
// runs them, each resource through the real dynamic-provider host, against an emulator (on a
// worker thread of its own) with 20 ms added to every request and 2 s server provisioning.
//
//   fleet       40 keys, 40 servers, 10 groups, 40 attachments, 10 tags: up, no-op up, refresh,
//               destroy, at --parallel 16; on the dynamic resources, then on the native plugin
//               started as the CLI starts it from the package's plugin/ folder (its
//               pulumi-resource-cloudinfra executed directly, PULUMI_IGNORE_AMBIENT_PLUGINS=1),
//               then on the plugin found on PATH
//               (node_modules/.bin/pulumi-resource-cloudinfra, executed directly), then the three
//               side by side
//   tags        programs of 100 and 1000 tags: up and no-op up, with peak memory; and the 1000
//               tags with the heap limits a user can set (bench/programs/tags-tuned)
//   rate-limit  the fleet under a 10 req/s limit (burst 10): runs that fail, and wall time
//               against requests admitted ÷ rate; BENCH_RATE_RUNS (default 10) up/destroy runs of
//               a fleet of BENCH_RATE_SIZE (default 40) servers
//
// The local engine runs in this process, so the benchmark also times what the engine itself
// spends writing its checkpoints (StateStore.save: a journal line after every step, with the
// resources serialized for the first time; StateStore.commit: the whole state at the end): the
// part of a wall time no provider change can reach.
// "Start-up" is the time until the provider host is ready (the program's first registration
// reached the engine and the host answered): the same moment for an up and a no-op up. For the
// plugin it is broken down: the engine asked for it (the default provider's registration, when
// the CLI loads a plugin too), it printed its port, the first API request.
//
// Diagnosis: BENCH_TIMELINE=1 prints every request of each operation (ms after its start) and
// every Check (its end, Date.now(), and duration). The fleet runs twice, on the dynamic resources
// and on the native provider plugin (`fleet:flavour`), each against a fresh emulator; BENCH_NODE_OPTIONS adds Node options to the
// program and the provider host (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
//
// Every bound is computed in the same run from the same settings: the lower bound of an `up`
// with P workers, latency L and provisioning T is the longer of the dependency chain
// (key → server → attachment/tag: L + (T + L) + L) and the waves of servers P allows
// (L + ⌈servers ÷ P⌉ (T + L) + L).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { LocalEngine } from "../test/support/local-engine/engine.ts";
import { PluginProviders } from "../test/support/local-engine/plugin-providers.ts";
import { ProviderHost } from "../test/support/local-engine/provider-host.ts";
import { StateStore } from "../test/support/local-engine/state.ts";
import { startEmulatorThread } from "./support/emulator-thread.mjs";
import { num, ROOT, ratio, stackConfig, table } from "./support.mjs";

const L = 20;
const T = 2000;
const P = 16;
const SERVERS = 40;

function lowerBound(servers, provisioning) {
  const chain = L + (provisioning + L) + L;
  const waves = L + Math.ceil(servers / P) * (provisioning + L) + L;
  return Math.max(chain, waves);
}

async function startEmulator(extra = {}) {
  return startEmulatorThread({
    lifecycle: {
      durations: { provisioning: T, deleting: T, starting: 100, stopping: 100, rebooting: 100 },
    },
    faults: { seed: 1, rules: [{ path: "/v1/*", latency_ms: [L, L] }] },
    requestLogSize: 100_000,
    ...extra,
  });
}

/**
 * How the fleet runs: the dynamic resources, or the native ones with the plugin found one way or
 * the other (`source`: what `RunResult.plugins` must report), through the engine's environment.
 */
const BIN = join(ROOT, "node_modules", ".bin");
const pathWithout = (dir) =>
  (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d !== dir)
    .join(delimiter);
const FLEET_WAYS = [
  { key: "dynamic", flavour: "dynamic", label: "dynamic resources", env: {} },
  {
    key: "inFolder",
    flavour: "native",
    source: "package",
    label: "native, plugin/ folder (its pulumi-resource-cloudinfra, executed directly)",
    env: { PULUMI_IGNORE_AMBIENT_PLUGINS: "1" },
  },
  {
    key: "onPath",
    flavour: "native",
    source: "ambient",
    label: "native, pulumi-resource-cloudinfra on PATH",
    env: {
      PATH: `${BIN}${delimiter}${pathWithout(BIN)}`,
      PULUMI_IGNORE_AMBIENT_PLUGINS: undefined,
    },
  },
];

/** An engine for `project` against `emulator`, its state in a temp dir, memory reported. */
function engineFor(project, emulator, config, dir, extraEnv = {}) {
  const { "cloudinfra:apiKey": apiKey, ...plain } = stackConfig(emulator);
  const rssFile = join(dir, "rss.jsonl");
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CLOUDINFRA_")) delete env[k];
  for (const [k, v] of Object.entries(extraEnv)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  env.BENCH_RSS_FILE = rssFile;
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} ${process.env.BENCH_NODE_OPTIONS ?? ""} --require ${join(ROOT, "bench", "support", "report-rss.cjs")}`;
  const engine = new LocalEngine({
    projectDir: join(ROOT, "bench", "programs", project),
    stateFile: join(dir, "state.json"),
    config: { ...plain, ...config },
    secretConfig: { "cloudinfra:apiKey": apiKey },
    parallel: P,
    env,
    programTimeoutMs: 600_000,
  });
  return { engine, rssFile };
}

/** The lines report-rss.cjs appended to `rssFile`: one per process that exited. */
function reports(rssFile) {
  try {
    return readFileSync(rssFile, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/** Peak memory (MB) of the program and the provider host, over every run of `rssFile`. */
function peaks(rssFile) {
  const lines = reports(rssFile);
  const max = (role) =>
    Math.max(...lines.filter((l) => l.role === role).map((l) => l.maxRssKb / 1024));
  return { program: max("program"), host: max("host") };
}

/** CPU time (ms) the program and the provider host(s) used, in the report lines `lines`. */
function cpuOf(lines) {
  const sum = (role) =>
    lines.filter((l) => l.role === role).reduce((total, l) => total + l.cpuMs, 0);
  return { program: sum("program"), host: sum("host") };
}

/**
 * What the engine in this process did during a run: checkpoint writes, Check calls (the step
 * generator makes them one at a time: they delay every later create) and the host's start.
 */
const engineClock = {
  saves: 0,
  saveMs: 0,
  checks: 0,
  checkMs: 0,
  diffs: 0,
  diffMs: 0,
  hostReadyAt: Number.NaN,
  /** When the engine first asked for a plugin process (its provider's registration). */
  pluginAskedAt: Number.NaN,
};
/**
 * Wraps `proto[method]` to add its duration to `engineClock[ms]` and count its calls in
 * `engineClock[count]` (when given); `after(ms, args)` sees each call's duration.
 */
function timed(proto, method, ms, count, after) {
  const original = proto[method];
  proto[method] = function timedMethod(...args) {
    const started = performance.now();
    const done = () => {
      const took = performance.now() - started;
      engineClock[ms] += took;
      if (count !== undefined) engineClock[count]++;
      after?.(took, args);
    };
    let result;
    try {
      result = original.apply(this, args);
    } catch (err) {
      done();
      throw err;
    }
    if (result instanceof Promise) return result.finally(done);
    done();
    return result;
  };
}
timed(ProviderHost.prototype, "diff", "diffMs", "diffs");
timed(ProviderHost.prototype, "check", "checkMs", "checks", (ms, args) => {
  if (process.env.BENCH_TIMELINE) {
    process.stdout.write(`  check ${Date.now()} ${ms.toFixed(1)} ms ${String(args[0])}\n`);
  }
});
timed(StateStore.prototype, "save", "saveMs", "saves");
timed(StateStore.prototype, "commit", "saveMs");
const startHost = ProviderHost.start;
ProviderHost.start = async function timedStart(...args) {
  const host = await startHost.apply(this, args);
  if (Number.isNaN(engineClock.hostReadyAt)) engineClock.hostReadyAt = Date.now();
  return host;
};

const startPlugin = PluginProviders.prototype.start;
PluginProviders.prototype.start = function timedPluginStart(...args) {
  if (Number.isNaN(engineClock.pluginAskedAt)) engineClock.pluginAskedAt = Date.now();
  return startPlugin.apply(this, args);
};

/** Runs `operation`, measuring wall time and what the emulator saw while it ran. */
async function measure(emulator, operation, rssFile) {
  const before = (await emulator.admin.requests(100_000)).length;
  const reported = rssFile === undefined ? 0 : reports(rssFile).length;
  engineClock.saves = 0;
  engineClock.saveMs = 0;
  engineClock.checks = 0;
  engineClock.checkMs = 0;
  engineClock.diffs = 0;
  engineClock.diffMs = 0;
  engineClock.hostReadyAt = Number.NaN;
  engineClock.pluginAskedAt = Number.NaN;
  const started = Date.now();
  const result = await operation();
  const wall = Date.now() - started;
  // The processes of the operation have exited (the engine waits for them): their CPU time.
  const cpu = cpuOf(rssFile === undefined ? [] : reports(rssFile).slice(reported));
  const { saves, saveMs, checks, checkMs, diffs, diffMs } = engineClock;
  const startup = engineClock.hostReadyAt - started;
  const pluginAsked = engineClock.pluginAskedAt - started;
  const requests = (await emulator.admin.requests(100_000)).slice(before);
  const times = requests.map((r) => Date.parse(r.time));
  if (process.env.BENCH_TIMELINE) {
    for (const r of requests) {
      const at = Date.parse(r.time) - started;
      process.stdout.write(
        `  request +${at} ms (${r.duration_ms} ms) ${r.method} ${r.path} ${r.status}\n`,
      );
    }
    process.stdout.write(`  operation started ${started}, ended after ${wall} ms\n`);
  }
  const first = times.length > 0 ? Math.min(...times) : NaN;
  const last =
    requests.length > 0
      ? Math.max(...requests.map((r) => Date.parse(r.time) + r.duration_ms))
      : NaN;
  const byRoute = {};
  for (const r of requests) {
    const key = `${r.method} ${r.route ?? r.path}${r.status === 429 ? " (429)" : ""}`;
    byRoute[key] = (byRoute[key] ?? 0) + 1;
  }
  if (result.exitCode !== 0) {
    const errors = result.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);
    process.stdout.write(
      `  run failed (exit ${result.exitCode}): ${errors.slice(0, 2).join(" | ")}\n`,
    );
  }
  return {
    result,
    wall,
    cpu,
    saves,
    saveMs,
    checks,
    checkMs,
    diffs,
    diffMs,
    startup,
    pluginAsked,
    startToFirst: first - started,
    span: last - first,
    count: requests.length,
    admitted: requests.filter((r) => r.status !== 429).length,
    byRoute,
  };
}

function routes(title, byRoute) {
  const rows = Object.entries(byRoute)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([route, n]) => `${route}: ${n}`);
  process.stdout.write(`\n  ${title}\n${rows.map((r) => `    ${r}`).join("\n")}\n`);
}

/**
 * The fleet on the dynamic resources, then the same program on the native provider plugin run
 * both ways the CLI may find it (the package's plugin/ folder, whose executable it runs; the
 * executable on PATH), then the three side by side (issue 17's goals: no worse than dynamic; start-up to the
 * first request ≤ 1.5 s).
 */
export async function benchFleet() {
  const runs = {};
  for (const way of FLEET_WAYS) runs[way.key] = await benchFleetOf(way);
  const { dynamic, inFolder, onPath } = runs;
  const bound = lowerBound(SERVERS, T);
  const side = (f, unit = " ms") =>
    [inFolder, onPath, dynamic].map((r) => num(f(r), unit)).join(" / ");
  const ratios = (f) =>
    `${ratio(f(inFolder), f(dynamic))} / ${ratio(f(onPath), f(dynamic))} of dynamic`;
  table(
    "Fleet: native beside dynamic, same run (native from plugin/ / native on PATH / dynamic)",
    [
      [
        "program start → first API request",
        side((r) => r.up.startToFirst),
        `${ratios((r) => r.up.startToFirst)} (goal: native ≤ 1500 ms)`,
      ],
      [
        "  engine asks for the plugin (provider registered)",
        side((r) => r.up.pluginAsked),
        "the program's start-up (Node, the SDK, its first registrations)",
      ],
      [
        "  provider process printed its port",
        side((r) => r.up.startup),
        "dynamic: the host's port and Configure",
      ],
      [
        "up: wall ÷ bound",
        side((r) => r.up.wall / bound, ""),
        `${ratios((r) => r.up.wall)} (goal ≤ 1.00x)`,
      ],
      [
        "up: API requests",
        side((r) => r.up.count, ""),
        `${ratios((r) => r.up.count)} (goal ≤ 1.00x)`,
      ],
      ["no-op up: wall", side((r) => r.noop.wall), ratios((r) => r.noop.wall)],
      ["destroy: wall", side((r) => r.destroy.wall), ratios((r) => r.destroy.wall)],
      [
        "up: CPU time of program + provider process",
        side((r) => r.up.cpu.program + r.up.cpu.host),
        ratios((r) => r.up.cpu.program + r.up.cpu.host),
      ],
      ["peak memory: program", side((r) => r.mem.program, " MB"), ratios((r) => r.mem.program)],
      [
        "peak memory: provider plugin / dynamic-provider host",
        side((r) => r.mem.host, " MB"),
        ratios((r) => r.mem.host),
      ],
    ],
    "The three ran one after the other in this process, each against a fresh emulator.",
  );
}

async function benchFleetOf(way) {
  const { flavour } = way;
  const emulator = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), "bench-fleet-"));
  try {
    const { engine, rssFile } = engineFor(
      "fleet",
      emulator,
      { "fleet:size": String(SERVERS), "fleet:flavour": flavour },
      dir,
      way.env,
    );
    const up = await measure(emulator, () => engine.up(), rssFile);
    const noop = await measure(emulator, () => engine.up(), rssFile);
    const refresh = await measure(emulator, () => engine.refresh(), rssFile);
    const destroy = await measure(emulator, () => engine.destroy(), rssFile);
    // The plugin was found the way this run measures, or its figures would be another's.
    const sources = [up, noop, refresh, destroy].flatMap((m) =>
      m.result.plugins.map((p) => p.source),
    );
    if (way.source !== undefined && sources.some((source) => source !== way.source)) {
      throw new Error(`${way.label}: plugins found as ${sources.join(", ")}, not ${way.source}`);
    }
    const bound = lowerBound(SERVERS, T);
    const resources = SERVERS * 3 + 10 + 10;
    // One create per object, one list per group create (its id is not in the answer), one GET
    // per server (its final state), and the plan lookup.
    const minimum = SERVERS + SERVERS + 10 + SERVERS + 10 + 10 + SERVERS + 1;
    const mem = peaks(rssFile);
    table(
      `Fleet (${way.label}) through the local engine: ${SERVERS} keys, ${SERVERS} servers, 10 groups, ${SERVERS} attachments, 10 tags (--parallel ${P}, ${L} ms per request, ${T / 1000} s provisioning and deletion)`,
      [
        ["program start → first API request", num(up.startToFirst, " ms"), "goal ≤ 2000 ms"],
        [
          "start-up: provider ready (up)",
          num(up.startup, " ms"),
          flavour === "native"
            ? `plugin asked for at ${num(up.pluginAsked, " ms")}: ${num(up.startup - up.pluginAsked, " ms")} to its port`
            : "",
        ],
        ["lower bound of up and destroy", num(bound, " ms"), ""],
        ["up: wall", num(up.wall, " ms"), `${ratio(up.wall, bound)} of bound (goal ≤ 1.4)`],
        [
          "up: API span (first request → last answer)",
          num(up.span, " ms"),
          `${ratio(up.span, bound)} of bound (goal ≤ 1.10)`,
        ],
        [
          "up: API requests",
          num(up.count),
          `${ratio(up.count, minimum)} of minimum ${minimum} (goal ≤ 1.25)`,
        ],
        ["no-op up: wall / API requests", `${num(noop.wall, " ms")} / ${num(noop.count)}`, ""],
        [
          `refresh of ${resources} resources: API requests`,
          num(refresh.count),
          `goal ≤ 10; wall ${num(refresh.wall, " ms")}`,
        ],
        [
          "destroy: wall",
          num(destroy.wall, " ms"),
          `${ratio(destroy.wall, bound)} of bound (goal ≤ 1.3)`,
        ],
        [
          `peak memory: program / ${flavour === "native" ? "provider plugin" : "provider host"}`,
          `${num(mem.program, " MB")} / ${num(mem.host, " MB")}`,
          "",
        ],
        [
          `up: CPU time: program / ${flavour === "native" ? "provider plugin" : "provider host"}`,
          `${num(up.cpu.program, " ms")} / ${num(up.cpu.host, " ms")}`,
          "user + system; not inflated by other load as wall time is",
        ],
        [
          "up: Check calls, one at a time (local engine)",
          `${num(up.checks)} in ${num(up.checkMs, " ms")}`,
          `${num(up.checkMs / Math.max(1, up.checks))} ms each, round trip to the host`,
        ],
        [
          "local engine's checkpoint writes: up / destroy",
          `${num(up.saveMs, " ms")} / ${num(destroy.saveMs, " ms")}`,
          `${num(up.saves)} / ${num(destroy.saves)} checkpoints (journal lines), then one whole write`,
        ],
        [
          "runs that failed",
          num([up, noop, refresh, destroy].filter((m) => m.result.exitCode !== 0).length),
          "of 4",
        ],
      ],
      "Bounds and minimums are computed from this run's settings; ratios compare figures of this run.",
    );
    routes("up: requests by route", up.byRoute);
    routes("refresh: requests by route", refresh.byRoute);
    return { up, noop, destroy, mem };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchTags() {
  const rows = [];
  const figures = {};
  for (const count of [100, 1000]) {
    const emulator = await startEmulator();
    const dir = mkdtempSync(join(tmpdir(), "bench-tags-"));
    try {
      const { engine, rssFile } = engineFor("tags", emulator, { "tags:count": String(count) }, dir);
      const up = await measure(emulator, () => engine.up());
      const noop = await measure(emulator, () => engine.up());
      await engine.destroy();
      const mem = peaks(rssFile);
      figures[count] = { up, noop };
      rows.push(
        [
          `${count} tags: up wall (start → first request)`,
          `${num(up.wall, " ms")} (${num(up.startToFirst, " ms")})`,
          count === 1000 ? "goal ≤ 10000 ms" : "",
        ],
        [
          `${count} tags: start-up (provider host ready): up / no-op up`,
          `${num(up.startup, " ms")} / ${num(noop.startup, " ms")}`,
          "",
        ],
        [`${count} tags: no-op up wall`, num(noop.wall, " ms"), ""],
        [
          `${count} tags: local engine's checkpoint writes, up`,
          `${num(up.saveMs, " ms")} (${num(up.saves)} writes)`,
          `${ratio(up.saveMs, up.wall)} of the up's wall`,
        ],
        [
          `${count} tags: Check + Diff calls, one at a time: up / no-op`,
          `${num(up.checkMs + up.diffMs, " ms")} / ${num(noop.checkMs + noop.diffMs, " ms")}`,
          `${num(up.checks + up.diffs)} / ${num(noop.checks + noop.diffs)} calls`,
        ],
        [`${count} tags: API requests up / no-op`, `${num(up.count)} / ${num(noop.count)}`, ""],
        [
          `${count} tags: peak memory program / host`,
          `${num(mem.program, " MB")} / ${num(mem.host, " MB")}`,
          count === 1000 ? "goal ≤ 300 MB (program)" : "",
        ],
      );
    } finally {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // What a user can do about the program's memory (docs/resources.md): the same 1000 tags with
  // the Node heap limits of bench/programs/tags-tuned/Pulumi.yaml (its `nodeargs`).
  {
    const emulator = await startEmulator();
    const dir = mkdtempSync(join(tmpdir(), "bench-tags-tuned-"));
    try {
      const { engine, rssFile } = engineFor("tags-tuned", emulator, { "tags:count": "1000" }, dir);
      const up = await measure(emulator, () => engine.up());
      await engine.destroy();
      const mem = peaks(rssFile);
      rows.push([
        `1000 tags, nodeargs "${engine.project.nodeArgs.join(" ")}": up wall; peak memory program / host`,
        `${num(up.wall, " ms")}; ${num(mem.program, " MB")} / ${num(mem.host, " MB")}`,
        "goal ≤ 300 MB (program)",
      ]);
    } finally {
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  /**
   * t(1000) ÷ t(100) of `op`, less start-up (`exclude`), and less the Check and Diff calls
   * (`serial`; their round trips also hold the time the engine's own event loop was busy, its
   * checkpoints included).
   */
  const r = (op, exclude, serial = false) => {
    const t = (m) => m.wall - (exclude ? m.startup : 0) - (serial ? m.checkMs + m.diffMs : 0);
    return t(figures[1000][op]) / t(figures[100][op]);
  };
  const bigUp = figures[1000].up;
  const smallUp = figures[100].up;
  rows.push(
    [
      "1000 tags: up wall less the local engine's checkpoint writes",
      num(bigUp.wall - bigUp.saveMs, " ms"),
      `t(1000) ÷ t(100) so: ${((bigUp.wall - bigUp.saveMs) / (smallUp.wall - smallUp.saveMs)).toFixed(2)}`,
    ],
    [
      "t(1000) ÷ t(100): up, no-op up",
      `${r("up", false).toFixed(2)}, ${r("noop", false).toFixed(2)}`,
      "goal ≤ 4",
    ],
    [
      "same, start-up excluded",
      `${r("up", true).toFixed(2)}, ${r("noop", true).toFixed(2)}`,
      "goal ≤ 3",
    ],
    [
      "same, less also the engine's one-at-a-time Check/Diff calls",
      `${r("up", true, true).toFixed(2)}, ${r("noop", true, true).toFixed(2)}`,
      "what the rest scales by",
    ],
  );
  table("Programs of 100 and 1000 tags through the local engine", rows);
}

export async function benchRateLimit() {
  const runs = Number(process.env.BENCH_RATE_RUNS ?? 10);
  const size = Number(process.env.BENCH_RATE_SIZE ?? 40);
  const rate = 10;
  const emulator = await startEmulator({
    rateLimit: { enabled: true, rate_per_second: rate, burst: 10 },
  });
  const dir = mkdtempSync(join(tmpdir(), "bench-rate-"));
  const rows = [];
  let failed = 0;
  const byRoute = {};
  try {
    const { engine } = engineFor("fleet", emulator, { "fleet:size": String(size) }, dir);
    for (let i = 0; i < runs; i++) {
      const op = i % 2 === 0 ? "up" : "destroy";
      const m = await measure(emulator, () => (op === "up" ? engine.up() : engine.destroy()));
      if (m.result.exitCode !== 0) failed++;
      const floor = (m.admitted / rate) * 1000;
      rows.push([
        `run ${i + 1} (${op}): wall ÷ (admitted ÷ rate)`,
        `${num(m.wall, " ms")} ÷ ${num(floor, " ms")}`,
        `${ratio(m.wall, floor)} (goal ≤ 1.10); ${m.count - m.admitted} answered 429`,
      ]);
      for (const [k, n] of Object.entries(m.byRoute)) byRoute[k] = (byRoute[k] ?? 0) + n;
    }
    rows.push(["runs that failed", `${failed} of ${runs}`, "goal 0"]);
    table(
      `A fleet of ${size} servers under a ${rate} req/s limit (burst 10), through the local engine`,
      rows,
      "BENCH_RATE_SIZE and BENCH_RATE_RUNS (default 40 servers, 10 runs: the issue's figure) for a quicker look.",
    );
    routes("requests by route (429 answers apart)", byRoute);
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
