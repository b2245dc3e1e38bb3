// `npm run bench -- inventory`: `cloudinfra-inventory` on one account of 10,000 objects against 20
// stack files, as a user runs it (its own process, started until it exited): the requests per
// kind (one list per kind, the security groups 100 a page), the wall time and the process's peak
// memory. Goals (issue 25): one list per kind, pages as needed; at most 5 s; at most 300 MB.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answered, clientFor, num, ROOT, startBenchEmulator, table } from "./support.mjs";

/** Objects in the account: 10,000 (BENCH_INVENTORY_OBJECTS, a multiple of 10, for a smoke run). */
const OBJECTS = Number(process.env.BENCH_INVENTORY_OBJECTS ?? 10_000);
const SEED = {
  servers: (OBJECTS * 3) / 10,
  tags: (OBJECTS * 3) / 10,
  keys: OBJECTS / 10,
  security_groups: (OBJECTS * 3) / 10,
};
const STACKS = 20;
/** Objects left out of every stack: the strays the run must find. */
const STRAYS = 10;

const ROUTES = [
  ["Server", "/v1/servers"],
  ["SshKey", "/v1/keys"],
  ["Role", "/v1/account/roles"],
  ["Tag", "/v1/tags"],
  ["SecurityGroup (+ attachments)", "/v1/firewall/groups"],
];

function stackExport(stack, resources) {
  const urn = (type, name) => `urn:pulumi:${stack}::bench::${type}::${name}`;
  return {
    version: 3,
    deployment: {
      manifest: { time: new Date().toISOString(), magic: "bench", version: "bench" },
      resources: [
        {
          urn: urn("pulumi:pulumi:Stack", `bench-${stack}`),
          custom: false,
          type: "pulumi:pulumi:Stack",
        },
        ...resources.map((r) => ({
          urn: urn(r.type, r.name),
          custom: true,
          id: r.id,
          type: r.type,
          inputs: { name: r.name },
          outputs: { name: r.name },
        })),
      ],
    },
  };
}

/** Runs the CLI with report-rss.cjs; resolves to its exit code, wall time and peak RSS. */
function runInventory(args, env, rssFile) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--require",
      join(ROOT, "bench", "support", "report-rss.cjs"),
      join(ROOT, "dist/inventory/cli.js"),
      ...args,
    ],
    { env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.once("close", (code) => {
      const ms = performance.now() - started;
      const [line] = readFileSync(rssFile, "utf8").trim().split("\n");
      resolve({ code, ms, maxRssKb: JSON.parse(line).maxRssKb, stderr });
    }),
  );
}

export async function benchInventory() {
  const emulator = await startBenchEmulator();
  const client = clientFor(emulator);
  const dir = mkdtempSync(join(tmpdir(), "cloudinfra-bench-inventory-"));
  try {
    // Tags first: seeded with the servers of the same call, every tag would carry the first
    // server, and each tag's server its 3,000 tags (a list answer too large to serialize).
    const { servers: serverCount, ...rest } = SEED;
    await emulator.admin.seed(rest);
    await emulator.admin.seed({ servers: serverCount });
    const [servers, tags, keys, groups] = await Promise.all([
      client.servers.list(),
      client.tags.list(),
      client.keys.list(),
      client.firewall.listAll({ limit: 100 }),
    ]);
    const objects = [
      ...servers.map((s) => ({
        type: "cloudinfra:index:Server",
        name: s.user_defined_name,
        id: String(s.id),
      })),
      ...tags.map((t) => ({ type: "cloudinfra:index:Tag", name: t.name, id: String(t.id) })),
      ...keys.map((k) => ({ type: "cloudinfra:index:SshKey", name: k.name, id: String(k.id) })),
      ...groups.map((g) => ({
        type: "cloudinfra:index:SecurityGroup",
        name: g.name,
        id: String(g.id),
      })),
    ];
    if (objects.length !== OBJECTS)
      throw new Error(`seeded ${objects.length} objects, not ${OBJECTS}`);
    const managed = objects.slice(0, objects.length - STRAYS);
    const states = join(dir, "stacks");
    mkdirSync(states);
    const per = Math.ceil(managed.length / STACKS);
    for (let i = 0; i < STACKS; i++) {
      const mine = managed.slice(i * per, (i + 1) * per);
      writeFileSync(join(states, `stack-${i}.json`), JSON.stringify(stackExport(`s${i}`, mine)));
    }
    const env = {
      PATH: process.env.PATH,
      CLOUDINFRA_ENDPOINT: emulator.endpoint,
      CLOUDINFRA_API_KEY: emulator.apiKey,
      CLOUDINFRA_CA_CERT: emulator.caCert,
    };
    const before = Object.fromEntries(
      ROUTES.map(([, route]) => [route, answered(emulator, "GET", route)]),
    );
    const json = join(dir, "report.json");
    const run = await runInventory(
      ["--state", states, "--json", json, "--import-file", join(dir, "import.json")],
      env,
      join(dir, "rss"),
    );
    if (run.code !== 3) throw new Error(`exit ${run.code}, expected 3: ${run.stderr}`);
    const report = JSON.parse(readFileSync(json, "utf8"));
    const unmanaged = report.accounts[0].kinds.reduce((n, k) => n + (k.counts.unmanaged ?? 0), 0);
    if (unmanaged !== STRAYS) throw new Error(`found ${unmanaged} unmanaged, expected ${STRAYS}`);
    table(
      `inventory: one account of ${num(OBJECTS)} objects (${Object.entries(SEED)
        .map(([k, v]) => `${num(v)} ${k}`)
        .join(", ")}) against ${STACKS} stack files`,
      [
        ...ROUTES.map(([kind, route]) => [
          `GET ${route} requests (${kind})`,
          num(answered(emulator, "GET", route) - before[route]),
          "",
        ]),
        ["unmanaged found (of 10 left out)", num(unmanaged), ""],
        ["wall, process start to exit", num(run.ms, "ms"), "goal <= 5,000 ms"],
        ["peak memory (maxRSS) of the process", num(run.maxRssKb / 1024, "MB"), "goal <= 300 MB"],
      ],
      "The command as a user runs it: node dist/inventory/cli.js --state <folder of 20> --json --import-file.\n" +
        "Requests are the emulator's answers per route (the client's retries included; none here).",
    );
  } finally {
    await client.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
