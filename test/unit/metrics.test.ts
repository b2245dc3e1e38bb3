import { describe, expect, it } from "vitest";
import {
  defaultMetricsWindow,
  MAX_METRIC_SAMPLES,
  metricsFor,
} from "../../src/emulator/service/metrics";

/** Server statistics as the emulator answers them. */
type MetricsRecord = ReturnType<typeof metricsFor>;

const SERIES = [
  "cpu_usage_percent",
  "mem_used_mb",
  "net_in_kbps",
  "net_out_kbps",
  "disk_read_kbps",
  "disk_write_kbps",
] as const;

const HOUR = { from: "2026-01-15T10:00:00Z", to: "2026-01-15T11:00:00Z", stepSeconds: 60 };

function lag1Autocorrelation(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  let numerator = 0;
  let denominator = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i]! - mean;
    denominator += d * d;
    if (i > 0) numerator += d * (values[i - 1]! - mean);
  }
  return numerator / denominator;
}

function standardDeviation(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
}

describe("metricsFor: shape", () => {
  it("returns one value per timestamp in every series, a minute apart over an hour", () => {
    const m = metricsFor(7, HOUR);
    expect(m.timestamps).toHaveLength(61);
    expect(m.timestamps[0]).toBe("2026-01-15T10:00:00Z");
    expect(m.timestamps.at(-1)).toBe("2026-01-15T11:00:00Z");
    for (const series of SERIES) expect(m[series]).toHaveLength(61);
    for (let i = 1; i < m.timestamps.length; i++) {
      expect(Date.parse(m.timestamps[i]!) - Date.parse(m.timestamps[i - 1]!)).toBe(60_000);
    }
    for (const ts of m.timestamps) expect(ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it("aligns samples to whole steps inside the window, whatever the bounds", () => {
    const m = metricsFor(7, {
      from: new Date("2026-01-15T10:00:20Z"),
      to: Date.parse("2026-01-15T10:14:59Z"),
      stepSeconds: 300,
    });
    expect(m.timestamps).toEqual(["2026-01-15T10:05:00Z", "2026-01-15T10:10:00Z"]);
    const none = metricsFor(7, {
      from: "2026-01-15T10:00:20Z",
      to: "2026-01-15T10:00:40Z",
      stepSeconds: 60,
    });
    expect(none.timestamps).toEqual([]);
    expect(none.cpu_usage_percent).toEqual([]);
  });

  it("uses the installed memory it is given (from the plan)", () => {
    const m = metricsFor(7, HOUR, { memTotalMb: 4096 });
    expect(m.mem_total_mb).toBe(4096);
    expect(Math.max(...m.mem_used_mb)).toBeLessThanOrEqual(4096);
  });

  it("covers the last hour by minute by default", () => {
    const now = new Date("2026-02-01T12:34:56Z");
    const m = metricsFor(1, defaultMetricsWindow(now));
    expect(m.timestamps).toHaveLength(60);
    expect(m.timestamps.at(-1)).toBe("2026-02-01T12:34:00Z");
  });
});

describe("metricsFor: plausible values", () => {
  it("stays within physical bounds for many servers over a week", () => {
    const week = { from: "2026-03-01T00:00:00Z", to: "2026-03-08T00:00:00Z", stepSeconds: 300 };
    for (let id = 1; id <= 60; id++) {
      const m = metricsFor(id, week);
      expect([1024, 2048, 4096, 8192, 16384, 32768]).toContain(m.mem_total_mb);
      // One aggregated assertion per series: per-sample expects would dominate the run time.
      expect(Math.min(...m.cpu_usage_percent)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...m.cpu_usage_percent)).toBeLessThanOrEqual(100);
      expect(Math.min(...m.mem_used_mb)).toBeGreaterThan(0);
      expect(Math.max(...m.mem_used_mb)).toBeLessThanOrEqual(m.mem_total_mb);
      expect(m.mem_used_mb.every(Number.isInteger)).toBe(true);
      for (const series of SERIES) {
        expect(m[series].every(Number.isFinite), `${series} of ${id}`).toBe(true);
        expect(Math.min(...m[series]), `${series} of ${id}`).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("moves like a machine: varied, but each minute close to the previous one", () => {
    const day = { from: "2026-03-02T00:00:00Z", to: "2026-03-03T00:00:00Z", stepSeconds: 60 };
    for (const id of [1, 2, 3, 99, 12345]) {
      const m = metricsFor(id, day);
      for (const series of SERIES) {
        const values = m[series];
        expect(standardDeviation(values), `${series} of ${id} is flat`).toBeGreaterThan(0);
        expect(lag1Autocorrelation(values), `${series} of ${id} is noise`).toBeGreaterThan(0.8);
      }
      const jumps = m.cpu_usage_percent
        .slice(1)
        .map((v, i) => Math.abs(v - m.cpu_usage_percent[i]!));
      expect(Math.max(...jumps)).toBeLessThan(10);
      expect(standardDeviation(m.cpu_usage_percent)).toBeGreaterThan(2);
    }
  });
});

describe("metricsFor: deterministic", () => {
  it("answers the same request identically, and treats 42 and '42' as the same server", () => {
    expect(metricsFor(42, HOUR)).toEqual(metricsFor(42, HOUR));
    expect(metricsFor("42", HOUR)).toEqual(metricsFor(42, HOUR));
  });

  it("gives different servers different curves", () => {
    const curves = [1, 2, 3, 4, 5].map((id) => metricsFor(id, HOUR).cpu_usage_percent.join());
    expect(new Set(curves).size).toBe(5);
  });

  it("never rewrites the past: overlapping windows agree on shared samples", () => {
    const early = metricsFor(9, {
      from: "2026-01-15T00:00:00Z",
      to: "2026-01-15T02:00:00Z",
      stepSeconds: 60,
    });
    const late = metricsFor(9, {
      from: "2026-01-15T01:00:00Z",
      to: "2026-01-15T03:00:00Z",
      stepSeconds: 60,
    });
    const at = (m: MetricsRecord, ts: string) => {
      const i = m.timestamps.indexOf(ts);
      return SERIES.map((s) => m[s][i]);
    };
    const shared = early.timestamps.filter((ts) => late.timestamps.includes(ts));
    expect(shared).toHaveLength(61);
    for (const ts of shared) expect(at(late, ts)).toEqual(at(early, ts));
    expect(late.mem_total_mb).toBe(early.mem_total_mb);
  });
});

describe("metricsFor: refuses bad windows with a reason", () => {
  it.each([
    ["an unparseable time", { ...HOUR, from: "yesterday" }, /from is not a valid time/],
    ["an end before the start", { ...HOUR, to: "2026-01-15T09:00:00Z" }, /`to` is before `from`/],
    [
      "a zero step",
      { ...HOUR, stepSeconds: 0 },
      /stepSeconds must be a positive whole number, got 0/,
    ],
    [
      "a fractional step",
      { ...HOUR, stepSeconds: 1.5 },
      /stepSeconds must be a positive whole number/,
    ],
    [
      "a year by minute",
      { from: "2026-01-01T00:00:00Z", to: "2026-12-31T00:00:00Z", stepSeconds: 60 },
      new RegExp(`at most ${MAX_METRIC_SAMPLES}; use a larger step`),
    ],
  ])("refuses %s", (_, window, message) => {
    expect(() => metricsFor(1, window)).toThrow(RangeError);
    expect(() => metricsFor(1, window)).toThrow(message);
  });

  it("refuses a non-positive memory size", () => {
    expect(() => metricsFor(1, HOUR, { memTotalMb: 0 })).toThrow(/memTotalMb must be a positive/);
  });
});
