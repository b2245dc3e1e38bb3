// 10. Hostile input against emulators in processes of their own (`cloudinfra-emulator`, a temp
// data dir), so that their memory is their own: how fast a JSON body past the nesting bound is
// refused and what another client waits meanwhile; what 20,000 connections with junk methods
// leave behind in the counters and the process's RSS, beside 20,000 ordinary requests; and the
// large-to-small ratios of work that must grow linearly (4x the input: linear is ~4x, quadratic
// ~16x). docs/emulator-limits.md has the bounds. Only 127.0.0.1 is used.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { now, num, ROOT, ratio, require, table } from "./support.mjs";

const { Agent, FormData, request } = require("undici");

/** Connections per churn phase; BENCH_HOSTILE_CONNECTIONS makes it smaller (the smoke test). */
const JUNK_REQUESTS = Number(process.env.BENCH_HOSTILE_CONNECTIONS ?? 20_000);
const JUNK_WIDTH = 20;
const RUNS = 7;

/** Starts the emulator CLI on 127.0.0.1 and reads its emulator.json. */
async function startChild() {
  const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-bench-hostile-"));
  const proc = spawn(
    process.execPath,
    [
      join(ROOT, "dist/emulator/cli.js"),
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--no-rate-limit",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  // Its access log (a line per request, 20,000 of them here) is dropped; failures are shown.
  proc.stderr.on("data", (chunk) => {
    for (const line of String(chunk).split("\n")) {
      if (line.includes("error")) process.stderr.write(`${line}\n`);
    }
  });
  let out = "";
  await new Promise((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("CLOUDINFRA_CA_CERT")) resolve();
    });
  });
  const info = JSON.parse(readFileSync(join(dataDir, "emulator.json"), "utf8"));
  const caCert = readFileSync(info.caCertFile, "utf8");
  const dispatcher = new Agent({ connect: { ca: caCert } });
  // Answers the status; a string body goes as JSON, a FormData as multipart.
  const call = async (method, path, body, answered = () => undefined) => {
    const answer = await request(`${info.endpoint}${path}`, {
      method,
      dispatcher,
      body,
      headers: {
        authorization: `ApiKey ${info.apiKey}`,
        ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
      },
    });
    answered(await answer.body.text());
    return answer.statusCode;
  };
  const close = async () => {
    await dispatcher.close();
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { proc, info, caCert, call, close };
}

/** The child's resident set in MB (Linux), or undefined. */
function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Median ms of `runs` calls of `work`, and the statuses it got. */
async function timed(runs, work) {
  const times = [];
  const statuses = new Set();
  for (let i = 0; i < runs; i++) {
    const started = now();
    statuses.add(await work());
    times.push(now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(runs / 2)], statuses: [...statuses].join(",") };
}

/** Longest wait of a client polling GET /v1/plans while `work` runs. */
async function longestWaitDuring(emulator, work) {
  let done = false;
  let longest = 0;
  const poller = (async () => {
    while (!done) {
      const started = now();
      await emulator.call("GET", "/v1/plans");
      longest = Math.max(longest, now() - started);
    }
  })();
  const result = await work();
  done = true;
  await poller;
  return { result, longest };
}

/**
 * One TLS connection sending one request and closing: a junk method, or an ordinary
 * authenticated GET. Resumes the last TLS session, as a client that reconnects would.
 */
function oneConnection(emulator, port, i, session, kind) {
  const line =
    kind === "junk"
      ? `JUNK${i} /junk/${i} HTTP/1.1\r\nHost: x\r\n\r\n`
      : `GET /v1/plans HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${emulator.info.apiKey}\r\nConnection: close\r\n\r\n`;
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, ca: emulator.caCert, session: session.last });
    socket.once("session", (s) => {
      session.last = s;
    });
    socket.once("secureConnect", () => socket.write(line));
    socket.on("data", () => socket.destroy());
    socket.once("close", resolve);
    socket.once("error", () => undefined);
  });
}

/** Counter keys of `emulator`. */
async function counterKeys(emulator) {
  let keys = 0;
  await emulator.call("GET", "/_emulator/counters", undefined, (text) => {
    keys = JSON.parse(text).routes.length;
  });
  return keys;
}

/**
 * {@link JUNK_REQUESTS} connections of `kind` to a fresh emulator process: counter keys and RSS
 * before, halfway (does growth level off?) and after.
 */
async function connectionChurn(kind) {
  const emulator = await startChild();
  try {
    const keysBefore = await counterKeys(emulator);
    const rss = [rssMb(emulator.proc.pid)];
    const port = Number(new URL(emulator.info.endpoint).port);
    const session = { last: undefined };
    let next = 0;
    const started = now();
    await Promise.all(
      Array.from({ length: JUNK_WIDTH }, async () => {
        while (next < JUNK_REQUESTS) {
          if (next === Math.floor(JUNK_REQUESTS / 2)) rss.push(rssMb(emulator.proc.pid));
          await oneConnection(emulator, port, next++, session, kind);
        }
      }),
    );
    const seconds = (now() - started) / 1000;
    rss.push(rssMb(emulator.proc.pid));
    return { seconds, keysBefore, keysAfter: await counterKeys(emulator), rss };
  } finally {
    await emulator.close();
  }
}

const rssRow = ({ rss }) =>
  rss[0] === undefined ? "n/a" : `${rss.map((mb) => num(mb)).join(" → ")} MB`;
const rssGrowth = ({ rss }) => (rss[0] === undefined ? undefined : (rss[2] ?? 0) - rss[0]);

export async function benchHostile() {
  // Junk first, each on a fresh process: distinct unknown methods on connections of their own,
  // none authenticated; then as many ordinary requests, each on a connection of its own, which
  // says what any connection costs the process (Node's TLS), junk or not.
  const junk = await connectionChurn("junk");
  const ordinary = await connectionChurn("ordinary");
  const emulator = await startChild();
  try {
    const deep8000 = `${"[".repeat(8000)}${"]".repeat(8000)}`;
    const inner = `${"[".repeat(3500)}${"]".repeat(3500)}`;
    const wide = `{"name":[${Array(80).fill(inner).join(",")}]}`;
    await emulator.call("POST", "/v1/tags", "{}"); // warm up
    const deep = await timed(RUNS, () => emulator.call("POST", "/v1/tags", deep8000));
    const deepClock = await timed(RUNS, () => emulator.call("POST", "/_emulator/clock", deep8000));
    const { result: wideRun, longest } = await longestWaitDuring(emulator, () =>
      timed(RUNS, () => emulator.call("POST", "/v1/tags", wide)),
    );

    // Linear work: a body of 10k and 40k strings (each checked for lone surrogates), a ticket
    // form of 1k and 4k fields.
    const strings = (n) => JSON.stringify({ name: "x", data: Array(n).fill("\ud800") });
    const small = strings(10_000);
    const large = strings(40_000);
    const bodySmall = await timed(RUNS, () => emulator.call("POST", "/v1/tags", small));
    const bodyLarge = await timed(RUNS, () => emulator.call("POST", "/v1/tags", large));
    const form = (n) => {
      const body = new FormData();
      for (let i = 0; i < n; i++) body.append(`f${i}`, "x");
      return body;
    };
    const formSmall = await timed(RUNS, () => emulator.call("POST", "/v1/tickets", form(1000)));
    const formLarge = await timed(RUNS, () => emulator.call("POST", "/v1/tickets", form(4000)));

    table(
      "Hostile input (emulator in its own process)",
      [
        [
          `JSON nested 8,000 deep, POST /v1/tags (${deep.statuses})`,
          num(deep.ms, "ms"),
          "goal < 100 ms",
        ],
        [
          `JSON nested 8,000 deep, POST /_emulator/clock (${deepClock.statuses})`,
          num(deepClock.ms, "ms"),
          "goal < 100 ms",
        ],
        [
          `${num(wide.length / 1024)} KB body, 3,500 deep × 80 (${wideRun.statuses})`,
          num(wideRun.ms, "ms"),
          "was 8.5 s",
        ],
        ["longest wait of another client meanwhile", num(longest, "ms"), "—"],
        [`body of 10,000 strings (${bodySmall.statuses})`, num(bodySmall.ms, "ms"), "baseline"],
        [
          `body of 40,000 strings (${bodyLarge.statuses})`,
          num(bodyLarge.ms, "ms"),
          ratio(bodyLarge.ms, bodySmall.ms),
        ],
        [
          `ticket form of 1,000 fields (${formSmall.statuses})`,
          num(formSmall.ms, "ms"),
          "baseline",
        ],
        [
          `ticket form of 4,000 fields (${formLarge.statuses})`,
          num(formLarge.ms, "ms"),
          ratio(formLarge.ms, formSmall.ms),
        ],
        [`${num(JUNK_REQUESTS)} junk-method connections`, num(junk.seconds, "s"), "—"],
        [
          "counter keys before → after",
          `${junk.keysBefore} → ${junk.keysAfter}`,
          `+${junk.keysAfter - junk.keysBefore} (goal ≤ 10)`,
        ],
        ["emulator RSS before → halfway → after", rssRow(junk), "—"],
        [
          `the same, ${num(JUNK_REQUESTS)} ordinary requests, a connection each`,
          rssRow(ordinary),
          "—",
        ],
        [
          "RSS growth: junk, ordinary",
          `+${num(rssGrowth(junk))} MB, +${num(rssGrowth(ordinary))} MB`,
          ratio(rssGrowth(junk), rssGrowth(ordinary)),
        ],
      ],
      "Statuses in parentheses; every hostile body must be a 4xx. Ratios: 4x the input, linear ≈ 4x.\n" +
        "RSS: junk against ordinary connections; the JS heap stays flat, what grows is Node's TLS.\n" +
        "Before the bounds (issue 26): 8,000 deep was a 500, one clock request ended the process,\n" +
        "20,000 junk requests added 20,000 counter keys and 233 MB.",
    );
  } finally {
    await emulator.close();
  }
}
