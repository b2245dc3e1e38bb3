// 4. Provider host round trip: the real @pulumi/pulumi dynamic-provider host, spawned and driven
// over gRPC the way the engine does it (and test/support/provider-fixture.ts does), Check + Create + Read +
// Delete of tags whose calls carry the `__provider` serialized from the built package's Tag class.
// Baseline: the same calls in-process through dist/provider.js (no host, no gRPC, no
// deserialization of `__provider`). Also: the serialized `__provider` size of every class.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  dist,
  now,
  num,
  ROOT,
  ratio,
  require,
  stackConfig,
  startBenchEmulator,
  table,
} from "./support.mjs";

const TAGS = 20;
const FIXTURE_PROJECT = join(ROOT, "test", "provider-host", "fixture");
const FIXTURE_PROJECT_NAME = "engine-fixture";
const HOST = join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider", "index.js");
/** The budget of a serialized shim, from src/resources/shim.ts (guarded by test/provider-host). */
const SHIM_BUDGET_BYTES = 2560;

const grpc = require("@grpc/grpc-js");
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");

/** As test/support/provider-fixture.ts prepareFixtureProject: the fixture depends on the package root. */
function prepareFixtureProject() {
  const modules = join(FIXTURE_PROJECT, "node_modules");
  const link = join(modules, "pulumi-cloudinfra");
  mkdirSync(modules, { recursive: true });
  if (!existsSync(link) || !lstatSync(link).isSymbolicLink()) {
    rmSync(link, { recursive: true, force: true });
    try {
      symlinkSync(ROOT, link, "dir");
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
  }
  return FIXTURE_PROJECT;
}

function hostEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CLOUDINFRA_")) delete env[k];
  env.PULUMI_NODEJS_PROJECT = FIXTURE_PROJECT_NAME;
  return env;
}

/** The capture script of test/support/provider-fixture.ts (it moved into the fixture project once). */
function captureScript() {
  const candidates = [
    join(FIXTURE_PROJECT, "capture-providers.cjs"),
    join(ROOT, "test", "support", "capture-providers.cjs"),
  ];
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) throw new Error(`no capture script at ${candidates.join(" or ")}`);
  return found;
}

/** The `__provider` each class registers, keyed by class name. */
function captureProviders(cwd) {
  const out = execFileSync(process.execPath, [captureScript()], {
    cwd,
    encoding: "utf8",
    env: hostEnv(),
  });
  return JSON.parse(out).registered;
}

const struct = (value) => Struct.fromJavaScript(value);
const props = (value) => value?.toJavaScript() ?? {};

/** The host process and a gRPC client of it. */
async function startHost(cwd, config) {
  const child = spawn(process.execPath, [HOST, "127.0.0.1:1"], {
    cwd,
    env: hostEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d.toString();
  });
  const port = await new Promise((ok, fail) => {
    let buffered = "";
    const onData = (d) => {
      buffered += d.toString();
      if (buffered.includes("\n")) {
        child.stdout.off("data", onData);
        ok(buffered.split("\n")[0].trim());
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) =>
      fail(new Error(`host exited (${code}) before its port: ${stderr}`)),
    );
    child.once("error", fail);
  });
  const client = new provrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );
  const call = (method, req) =>
    new Promise((ok, fail) => {
      client[method](req, (err, res) =>
        err ? fail(new Error(err.details ?? err.message)) : ok(res),
      );
    });
  const host = {
    async configure(cfg) {
      const req = new provproto.ConfigureRequest();
      req.setArgs(struct(cfg));
      await call("configure", req);
    },
    async check(urn, olds, news) {
      const req = new provproto.CheckRequest();
      req.setUrn(urn);
      req.setOlds(struct(olds));
      req.setNews(struct(news));
      const res = await call("check", req);
      return { inputs: props(res.getInputs()), failures: res.getFailuresList() };
    },
    async create(urn, properties) {
      const req = new provproto.CreateRequest();
      req.setUrn(urn);
      req.setProperties(struct(properties));
      const res = await call("create", req);
      return { id: res.getId(), properties: props(res.getProperties()) };
    },
    async read(urn, id, properties, inputs) {
      const req = new provproto.ReadRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(struct(properties));
      req.setInputs(struct(inputs));
      const res = await call("read", req);
      return { id: res.getId(), properties: props(res.getProperties()) };
    },
    async delete(urn, id, properties) {
      const req = new provproto.DeleteRequest();
      req.setUrn(urn);
      req.setId(id);
      req.setProperties(struct(properties));
      await call("delete", req);
    },
    async close() {
      client.close();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((ok) => child.once("exit", ok));
      child.kill("SIGTERM");
      await exited;
    },
  };
  try {
    await host.configure(config);
  } catch (err) {
    await host.close();
    throw err;
  }
  return host;
}

const urnOf = (name) =>
  `urn:pulumi:bench::${FIXTURE_PROJECT_NAME}::pulumi-nodejs:dynamic/cloudinfra:Tag::${name}`;

/**
 * Check, Create, Read, Delete of one tag through `ops` (the host, or in-process); adds the time
 * of each operation to `times`.
 */
async function lifecycle(ops, name, provider, times) {
  const urn = urnOf(name);
  const news = { name, color: "#33AA77", data: "bench", __provider: provider };
  let t = now();
  const checked = await ops.check(urn, {}, news);
  if (checked.failures.length > 0) throw new Error(`check of ${name} failed`);
  times.check.push(now() - t);
  t = now();
  const created = await ops.create(urn, checked.inputs);
  times.create.push(now() - t);
  t = now();
  const read = await ops.read(urn, created.id, created.properties, checked.inputs);
  if (read.id !== created.id) throw new Error(`read of ${name} lost the tag`);
  times.read.push(now() - t);
  t = now();
  await ops.delete(urn, created.id, created.properties);
  times.delete.push(now() - t);
}

/** The same calls through dist/provider.js in this process, shaped like the host's answers. */
function inProcess(config) {
  const entry = dist("provider.js");
  entry.configure({ config: new Map(Object.entries(config)) });
  const tag = entry.resource("Tag");
  return {
    async check(_urn, olds, news) {
      const res = await tag.check(olds, news);
      return { inputs: res.inputs, failures: res.failures ?? [] };
    },
    async create(_urn, properties) {
      const res = await tag.create(properties);
      return { id: res.id, properties: res.outs };
    },
    async read(_urn, id, properties) {
      const res = await tag.read(id, properties);
      return { id: res.id, properties: res.props };
    },
    async delete(_urn, id, properties) {
      await tag.delete(id, properties);
    },
  };
}

const zeroTimes = () => ({ check: [], create: [], read: [], delete: [] });
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const total = (t) => sum([...t.check, ...t.create, ...t.read, ...t.delete]);
/** The median: one stall of a shared machine does not move it. */
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export async function benchProviderHost() {
  const emulator = await startBenchEmulator();
  const config = stackConfig(emulator);
  const entry = dist("provider.js");
  let host;
  try {
    const cwd = prepareFixtureProject();
    let t0 = now();
    const captured = captureProviders(cwd);
    const captureMs = now() - t0;
    const provider = captured.Tag;
    if (provider === undefined) throw new Error("the built package has no Tag class");

    t0 = now();
    host = await startHost(cwd, config);
    const startMs = now() - t0;
    // The first tag pays for loading the shim, the package and the client, and the TLS handshake.
    const firstTimes = zeroTimes();
    await lifecycle(host, "bench-host-first", provider, firstTimes);
    const hostTimes = zeroTimes();
    t0 = now();
    for (let i = 0; i < TAGS; i++) await lifecycle(host, `bench-host-${i}`, provider, hostTimes);
    const hostMs = now() - t0;

    const local = inProcess(config);
    await lifecycle(local, "bench-local-first", provider, zeroTimes());
    const localTimes = zeroTimes();
    t0 = now();
    for (let i = 0; i < TAGS; i++) await lifecycle(local, `bench-local-${i}`, provider, localTimes);
    const localMs = now() - t0;

    const ops = TAGS * 4;
    const rate = (ms) => (ops * 1000) / ms;
    const rows = [
      ["in-process (dist/provider.js): ops/s", num(rate(localMs)), "1.00x"],
      ["through the host (gRPC): ops/s", num(rate(hostMs)), ratio(rate(hostMs), rate(localMs))],
    ];
    for (const op of ["check", "create", "read", "delete"]) {
      rows.push(
        [`in-process: ${op}, median ms/op`, num(median(localTimes[op])), "1.00x"],
        [
          `through the host: ${op}, median ms/op (max)`,
          `${num(median(hostTimes[op]))} (${num(Math.max(...hostTimes[op]))})`,
          ratio(median(hostTimes[op]), median(localTimes[op])),
        ],
      );
    }
    rows.push(
      ["host: first tag's 4 ops (cold)", num(total(firstTimes), "ms"), "—"],
      ["host: spawn until configured", num(startMs, "ms"), "—"],
      ["capture of __provider (mocked program)", num(captureMs, "ms"), "—"],
    );
    for (const [name, text] of Object.entries(captured)) {
      const bytes = Buffer.byteLength(text);
      rows.push([
        `serialized __provider: ${name}`,
        num(bytes, "bytes"),
        ratio(bytes, SHIM_BUDGET_BYTES),
      ]);
    }
    table(
      `4. Provider host round trip: Check + Create + Read + Delete of ${TAGS} tags, one at a time`,
      rows,
      "baseline for ops: the same four calls in this process through dist/provider.js (no host,\n" +
        `no gRPC); per-op figures are medians, ratios host / in-process. Sizes: ratio vs the ${SHIM_BUDGET_BYTES}-byte\n` +
        "budget of a shim (src/resources/shim.ts). Host: node_modules/@pulumi/pulumi/cmd/\n" +
        "dynamic-provider, cwd test/provider-host/fixture, driven like test/support/local-engine/provider-host.ts.",
    );
  } finally {
    await host?.close();
    await entry.resetHost();
    await emulator.close();
  }
}
