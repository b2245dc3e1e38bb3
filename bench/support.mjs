// Helpers shared by the benchmarks: the compiled package (dist/, built by `npm run bench`),
// in-process emulators, counters read from the emulator, and table printing.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** `require` relative to the repository root: `dist/...` and node_modules. */
export const require = createRequire(join(ROOT, "package.json"));

/** A module of the built package, e.g. `dist("emulator/index.js")`. */
export function dist(path) {
  return require(join(ROOT, "dist", path));
}

/**
 * An in-process emulator on 127.0.0.1 with the rate limiter off (the benchmarks measure the
 * client and the providers, not the emulator's 429s).
 */
export async function startBenchEmulator(options = {}) {
  const { startEmulator } = dist("emulator/index.js");
  return startEmulator({
    host: "127.0.0.1",
    port: 0,
    ...options,
    rateLimit: { enabled: false, ...options.rateLimit },
  });
}

/** A client of the typed API for this emulator (one keep-alive agent). */
export function clientFor(emulator) {
  const { CloudInfraClient } = dist("api/index.js");
  return new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
}

/** The stack configuration a provider host is configured with, for this emulator. */
export function stackConfig(emulator) {
  return {
    "cloudinfra:endpoint": emulator.endpoint,
    "cloudinfra:apiKey": emulator.apiKey,
    "cloudinfra:caCert": emulator.caCert,
  };
}

/** How many answers the emulator gave to `method route` (a route pattern, `/v1/tags/:id`). */
export function answered(emulator, method, route) {
  const counter = emulator.admin.counters().find((c) => c.method === method && c.route === route);
  return counter?.total ?? 0;
}

export const now = () => performance.now();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn(i)` for i in [0, count) with at most `width` calls in flight. */
export async function pool(count, width, fn) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

const fmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

/** A number for a table: thousands separators, at most one decimal. */
export function num(value, unit = "") {
  if (value === undefined || Number.isNaN(value)) return "n/a";
  const text =
    Math.abs(value) < 10 && !Number.isInteger(value) ? value.toFixed(2) : fmt.format(value);
  return unit === "" ? text : `${text} ${unit}`;
}

/** `value / baseline` as `2.35x`, or `—` when there is no meaningful ratio. */
export function ratio(value, baseline) {
  if (baseline === undefined || value === undefined || baseline === 0) return "—";
  const r = value / baseline;
  if (r === 0) return "0x";
  if (r >= 100) return `${fmt.format(r)}x`;
  return `${r < 0.1 ? r.toPrecision(2) : r.toFixed(2)}x`;
}

/**
 * Prints a table of `[figure, value, ratio]` rows under a title, with an optional note on what
 * the baseline is.
 */
export function table(title, rows, note) {
  const header = ["figure", "value", "ratio vs baseline"];
  const all = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  const out = [`\n## ${title}`, ""];
  out.push(line(header), widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of all.slice(1)) out.push(line(r));
  if (note !== undefined) out.push("", ...note.split("\n").map((l) => `  ${l}`));
  process.stdout.write(`${out.join("\n")}\n`);
}
