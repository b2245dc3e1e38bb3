/**
 * Synthetic but plausible server statistics for `GET /v1/servers/:id/statistics`.
 *
 * Every value is a pure function of the server id and the sample's timestamp, never of the
 * request: two overlapping windows agree on their common samples, and a dashboard that refreshes
 * does not rewrite the past. Series are smooth value noise (cosine-interpolated random knots)
 * on top of a daily cycle, so graphs look like a machine and not like static.
 */
import { mulberry32 } from "../../lib/prng";

/** Server statistics as the API returns them (spec: Metrics). */
interface MetricsRecord {
  /** Sample times, RFC 3339 UTC, ascending, `stepSeconds` apart. */
  timestamps: string[];
  /** CPU usage, 0–100 %. */
  cpu_usage_percent: number[];
  /** Memory in use, megabytes, never above `mem_total_mb`. */
  mem_used_mb: number[];
  /** Installed memory, megabytes. */
  mem_total_mb: number;
  /** Network traffic in, kilobits per second. */
  net_in_kbps: number[];
  /** Network traffic out, kilobits per second. */
  net_out_kbps: number[];
  /** Disk reads, kilobytes per second. */
  disk_read_kbps: number[];
  /** Disk writes, kilobytes per second. */
  disk_write_kbps: number[];
}

/** The time range to sample. Bounds are inclusive; instants may be Dates, RFC 3339 or epoch ms. */
export interface MetricsWindow {
  from: Date | string | number;
  to: Date | string | number;
  /** Seconds between samples, a positive whole number. */
  stepSeconds: number;
}

/** What the emulator knows about the server beyond its id. */
export interface MetricsOptions {
  /** Installed memory (from the plan's `ram_gb`); otherwise derived from the server id. */
  memTotalMb?: number;
}

/** Upper bound on samples per answer, so one request cannot make the emulator allocate GBs. */
export const MAX_METRIC_SAMPLES = 10_000;

/** The window the statistics endpoint uses when the caller names none: the last hour, by minute. */
export function defaultMetricsWindow(now: Date): MetricsWindow {
  return { from: new Date(now.getTime() - 3_600_000), to: now, stepSeconds: 60 };
}

/** FNV-1a over the id's text, so `42` and `"42"` describe the same server. */
function seedOf(serverId: number | string): number {
  let hash = 0x811c9dc5;
  for (const char of String(serverId)) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: spreads every input bit over the whole word. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) for (server, series, knot), independent of any window. */
function knotValue(seed: number, series: number, knot: number): number {
  let h = fmix32(seed ^ Math.imul(series + 1, 0x9e3779b1));
  h = fmix32(h ^ (knot >>> 0));
  h = fmix32(h ^ Math.floor(knot / 4294967296));
  return h / 4294967296;
}

/** Smooth noise in [-1, 1] whose features are about `periodSeconds` wide. */
function valueNoise(seed: number, series: number, periodSeconds: number, t: number): number {
  const position = t / periodSeconds;
  const knot = Math.floor(position);
  const blend = (1 - Math.cos(Math.PI * (position - knot))) / 2;
  const a = knotValue(seed, series, knot);
  const b = knotValue(seed, series, knot + 1);
  return 2 * (a + (b - a) * blend) - 1;
}

function toEpochMs(value: Date | string | number, what: string): number {
  const ms =
    value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`metrics window: ${what} is not a valid time`);
  return ms;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * Identity above `knee`, an exponential approach to zero below it: an idle machine's CPU hovers
 * just above zero instead of sitting on a flat clamped line.
 */
function softFloor(value: number, knee: number): number {
  return value >= knee ? value : knee * Math.exp((value - knee) / knee);
}

/** Memory sizes servers are sold with, for servers whose plan is unknown. */
const MEMORY_SIZES_MB = [1024, 2048, 4096, 8192, 16384, 32768];

/** The fixed character of one server: how busy it is and when its day peaks. */
interface Profile {
  seed: number;
  cpuBase: number;
  /** Share of `cpuBase` that the daily cycle adds at the peak and removes at night. */
  cpuDaily: number;
  memBase: number;
  peakHourUtc: number;
  netBaseKbps: number;
  outToInRatio: number;
  diskBaseKbps: number;
  writeToReadRatio: number;
  memTotalMb: number;
}

function profileOf(serverId: number | string, options: MetricsOptions): Profile {
  const seed = seedOf(serverId);
  const random = mulberry32(seed);
  const pick = (low: number, high: number) => low + (high - low) * random();
  const memTotalMb =
    options.memTotalMb ?? MEMORY_SIZES_MB[Math.floor(random() * MEMORY_SIZES_MB.length)] ?? 4096;
  if (!Number.isFinite(memTotalMb) || memTotalMb <= 0) {
    throw new RangeError(`memTotalMb must be a positive number, got ${memTotalMb}`);
  }
  return {
    seed,
    cpuBase: pick(4, 40),
    cpuDaily: pick(0.2, 0.6),
    memBase: pick(0.25, 0.7),
    peakHourUtc: pick(0, 24),
    netBaseKbps: pick(80, 4000),
    outToInRatio: pick(0.3, 4),
    diskBaseKbps: pick(20, 2500),
    writeToReadRatio: pick(0.2, 2.5),
    memTotalMb,
  };
}

/** Series numbers keep each metric's noise independent of the others. */
const SERIES = { cpu: 1, cpuFast: 2, mem: 3, net: 4, netOut: 5, diskRead: 6, diskWrite: 7 };

function withoutSamples(memTotalMb: number): MetricsRecord {
  return {
    timestamps: [],
    cpu_usage_percent: [],
    mem_used_mb: [],
    mem_total_mb: memTotalMb,
    net_in_kbps: [],
    net_out_kbps: [],
    disk_read_kbps: [],
    disk_write_kbps: [],
  };
}

/** Statistics of one server without samples, for a window that holds none (it is in the future). */
export function emptyMetricsFor(
  serverId: number | string,
  options: MetricsOptions = {},
): MetricsRecord {
  return withoutSamples(profileOf(serverId, options).memTotalMb);
}

/**
 * Statistics of one server over a window. Samples fall on whole multiples of `stepSeconds`
 * since the Unix epoch (the first at or after `from`), as real monitoring systems align them.
 *
 * @throws {RangeError} for an invalid time, `to` before `from`, a step that is not a positive
 *   whole number of seconds, or a window of more than {@link MAX_METRIC_SAMPLES} samples.
 */
export function metricsFor(
  serverId: number | string,
  window: MetricsWindow,
  options: MetricsOptions = {},
): MetricsRecord {
  const fromMs = toEpochMs(window.from, "from");
  const toMs = toEpochMs(window.to, "to");
  const { stepSeconds } = window;
  if (!Number.isSafeInteger(stepSeconds) || stepSeconds <= 0) {
    throw new RangeError(
      `metrics window: stepSeconds must be a positive whole number, got ${stepSeconds}`,
    );
  }
  if (toMs < fromMs) throw new RangeError("metrics window: `to` is before `from`");
  const stepMs = stepSeconds * 1000;
  const firstMs = Math.ceil(fromMs / stepMs) * stepMs;
  const count = firstMs > toMs ? 0 : Math.floor((toMs - firstMs) / stepMs) + 1;
  if (count > MAX_METRIC_SAMPLES) {
    throw new RangeError(
      `metrics window: ${count} samples requested, at most ${MAX_METRIC_SAMPLES}; use a larger step or a shorter window`,
    );
  }

  const p = profileOf(serverId, options);
  const out = withoutSamples(p.memTotalMb);

  for (let i = 0; i < count; i++) {
    const ms = firstMs + i * stepMs;
    const t = ms / 1000;
    const hour = (t / 3600) % 24;
    // 1 at the server's busiest hour, -1 twelve hours later.
    const daily = Math.cos((2 * Math.PI * (hour - p.peakHourUtc)) / 24);
    const load = 0.5 + 0.5 * daily;

    const cpuNoise =
      0.8 * valueNoise(p.seed, SERIES.cpu, 1800, t) +
      0.4 * valueNoise(p.seed, SERIES.cpuFast, 300, t);
    const cpu = p.cpuBase * (1 + p.cpuDaily * daily) + (2 + 0.35 * p.cpuBase) * cpuNoise;
    const cpuPercent = Math.min(100, softFloor(cpu, 3));

    const memFraction =
      p.memBase +
      0.08 * valueNoise(p.seed, SERIES.mem, 7200, t) +
      0.0015 * (cpuPercent - p.cpuBase);
    const memUsed = Math.round(clamp(memFraction, 0.05, 0.97) * p.memTotalMb);

    // Traffic is multiplicative: it scales with the daily load and never goes negative.
    const netIn =
      p.netBaseKbps * (0.35 + load) * Math.exp(0.6 * valueNoise(p.seed, SERIES.net, 900, t));
    const netOut =
      netIn * p.outToInRatio * Math.exp(0.3 * valueNoise(p.seed, SERIES.netOut, 600, t));
    const diskRead =
      p.diskBaseKbps * (0.3 + load) * Math.exp(0.8 * valueNoise(p.seed, SERIES.diskRead, 600, t));
    const diskWrite =
      p.diskBaseKbps *
      p.writeToReadRatio *
      (0.4 + 0.6 * load) *
      Math.exp(0.7 * valueNoise(p.seed, SERIES.diskWrite, 900, t));

    out.timestamps.push(new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));
    out.cpu_usage_percent.push(round1(cpuPercent));
    out.mem_used_mb.push(memUsed);
    out.net_in_kbps.push(round1(netIn));
    out.net_out_kbps.push(round1(netOut));
    out.disk_read_kbps.push(round1(diskRead));
    out.disk_write_kbps.push(round1(diskWrite));
  }
  return out;
}
