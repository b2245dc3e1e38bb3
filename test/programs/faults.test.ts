/**
 * The fault suite: a fleet program (6 keys, 6 servers, 3 groups, 4 attachments, 3 tags, a role,
 * a user) goes through `up`, an update with in-place and replace-forcing changes, and `destroy`,
 * through the local engine, while the emulator fails a share of requests (500, 502, 503, 429,
 * connection resets, and "applied but the answer lost", equally). A failed step is re-run as a
 * user would. After every step the state must match the service exactly: no object the state
 * lacks (leak), no state entry whose object is gone (orphan), no name twice (duplicate). Users,
 * which no call lists, are counted through the emulator's administration: a user whose create
 * answer was lost must be neither leaked nor made twice (names are unique, and the 409 of the
 * next attempt names the user the lost answer made: src/resources/create.ts, `unique`).
 *
 * CI runs `CLOUDINFRA_FAULT_SEEDS` seeds (3 by default, side by side) at `CLOUDINFRA_FAULT_RATE` (0.2); the
 * full run is `npm run test:faults` (20 seeds at 20%, then 5 at 35%). Outcomes depend on the
 * order of concurrent requests as well as the seed, so a seed can fare differently run to run.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import type { FaultConfig } from "../../src/emulator";
import type { LocalEngine, RunResult } from "../support/local-engine/engine.ts";
import { nameOf, type ProgramFixture, ROOT, startProgramFixture } from "../support/programs";

const PROJECT = join(ROOT, "test", "programs", "fleet");
const SEEDS = Number(process.env["CLOUDINFRA_FAULT_SEEDS"] ?? 3);
const RATE = Number(process.env["CLOUDINFRA_FAULT_RATE"] ?? 0.2);
/** Re-runs of a failed step: 3 at 20% as the issue sets; more at higher rates, to convergence. */
const RERUNS = Number(process.env["CLOUDINFRA_FAULT_RERUNS"] ?? (RATE > 0.25 ? 12 : 3));

/** Every fault kind on every route, equally, lost answers on user creates included. */
function faultsAt(seed: number, rate: number): FaultConfig {
  const each = rate / 6;
  return {
    seed,
    rules: [
      {
        path: "/v1/*",
        status_500: each,
        status_502: each,
        status_503: each,
        status_429: each,
        reset: each,
        answer_lost: each / (1 - 5 * each),
      },
    ],
  };
}

interface Inventory {
  duplicates: string[];
  leaks: string[];
  orphans: string[];
  /** Users the service holds that the state lacks: leaks the API itself cannot show. */
  unlistableUsers: number;
}

/** Compares what the state holds with what the service holds, kind by kind. */
async function inventory(fx: ProgramFixture, engine: LocalEngine): Promise<Inventory> {
  const client: CloudInfraClient = fx.client;
  const state = engine
    .resources()
    .filter((r) => r.custom && !r.external && !r.type.startsWith("pulumi:providers:"));
  const inState = (kind: string) =>
    state.filter((r) => r.type.endsWith(`:${kind}`) && !r.delete).map((r) => r.id ?? "");
  const tracked = (kind: string) =>
    new Set(state.filter((r) => r.type.endsWith(`:${kind}`)).map((r) => r.id ?? ""));
  const groups = await client.firewall.listAll();
  const live: Record<string, { id: string; name: string }[]> = {
    Server: (await client.servers.list()).map((s) => ({
      id: String(s.id),
      name: s.user_defined_name,
    })),
    SshKey: (await client.keys.list()).map((k) => ({ id: String(k.id), name: k.name })),
    Tag: (await client.tags.list()).map((t) => ({ id: String(t.id), name: t.name })),
    SecurityGroup: groups.map((g) => ({ id: String(g.id), name: g.name })),
    Role: (await client.iam.listRoles())
      .filter((r) => !r.system_role)
      .map((r) => ({ id: String(r.id), name: r.name })),
    SecurityGroupAttachment: groups.flatMap((g) =>
      (g.servers ?? []).map((s) => ({ id: `${g.id}/${s.id}`, name: `${g.id}/${s.id}` })),
    ),
  };
  const result: Inventory = { duplicates: [], leaks: [], orphans: [], unlistableUsers: 0 };
  for (const [kind, objects] of Object.entries(live)) {
    const names = objects.map((o) => o.name);
    for (const name of new Set(names)) {
      if (names.filter((n) => n === name).length > 1) result.duplicates.push(`${kind} ${name}`);
    }
    const ids = new Set(objects.map((o) => o.id));
    const known = tracked(kind);
    for (const o of objects) if (!known.has(o.id)) result.leaks.push(`${kind} ${o.name} (${o.id})`);
    for (const id of inState(kind)) if (!ids.has(id)) result.orphans.push(`${kind} ${id}`);
  }
  // Users cannot be listed: the bootstrap account counts them (its administrator is one).
  const accounts = (await fx.emulator.call("GET", "/_emulator/accounts")).body as {
    users: number;
  }[];
  const users = (accounts[0]?.users ?? 1) - 1;
  const userEntries = state.filter((r) => r.type.endsWith(":User")).length;
  if (users > userEntries) result.unlistableUsers = users - userEntries;
  if (users < userEntries) result.orphans.push(`User x${userEntries - users}`);
  return result;
}

interface SeedFigures {
  seed: number;
  converged: boolean;
  reruns: number;
  faults: Record<string, number>;
  duplicates: string[];
  leaks: string[];
  orphans: string[];
  /** Users left by lost create answers, at the end, and how many errors named such a user. */
  unlistableUsers: number;
  usersNamed: number;
  firstErrors: string[];
}

const figures: SeedFigures[] = [];

async function runSeed(seed: number): Promise<SeedFigures> {
  const fx = await startProgramFixture(PROJECT);
  const seen = new Set<string>();
  const faults: Record<string, number> = {};
  const countFaults = () => {
    for (const entry of fx.emulator.admin.requests(1000)) {
      if (seen.has(entry.request_id)) continue;
      seen.add(entry.request_id);
      if (entry.fault) faults[entry.fault] = (faults[entry.fault] ?? 0) + 1;
    }
  };
  const out: SeedFigures = {
    seed,
    converged: true,
    reruns: 0,
    faults,
    duplicates: [],
    leaks: [],
    orphans: [],
    unlistableUsers: 0,
    usersNamed: 0,
    firstErrors: [],
  };
  try {
    fx.emulator.admin.setFaults(faultsAt(seed, RATE));
    const steps: [string, LocalEngine, (e: LocalEngine) => Promise<RunResult>][] = [
      ["up", fx.engineWith({ config: { "fleet:version": "1" } }), (e) => e.up()],
      ["update", fx.engineWith({ config: { "fleet:version": "2" } }), (e) => e.up()],
      ["destroy", fx.engineWith({ config: { "fleet:version": "2" } }), (e) => e.destroy()],
    ];
    for (const [label, engine, run] of steps) {
      let result = await run(engine);
      for (let i = 0; result.exitCode !== 0 && i < RERUNS; i++) {
        const error = result.diagnostics.find((d) => d.severity === "error");
        if (result.diagnostics.some((d) => /look for a user named "fleet-bot"/.test(d.message))) {
          out.usersNamed++;
        }
        if (out.firstErrors.length < 3 && error) {
          out.firstErrors.push(
            `${label}: ${error.urn ? `${nameOf(error.urn)}: ` : ""}${error.message.split("\n")[0]}`,
          );
        }
        out.reruns++;
        // As the CLI asks after an interrupted run: refresh clears pending operations first.
        if (engine.pendingOperations().length > 0) await engine.refresh();
        result = await run(engine);
      }
      countFaults();
      if (result.exitCode !== 0) out.converged = false;
      const found = await inventory(fx, engine);
      out.duplicates.push(...found.duplicates.map((d) => `${label}: ${d}`));
      out.leaks.push(...found.leaks.map((d) => `${label}: ${d}`));
      out.orphans.push(...found.orphans.map((d) => `${label}: ${d}`));
      out.unlistableUsers = found.unlistableUsers;
      if (!out.converged) break;
    }
    if (out.duplicates.length + out.leaks.length + out.orphans.length > 0) out.converged = false;
  } finally {
    await fx.close();
  }
  return out;
}

describe(`the fleet under ${Math.round(RATE * 100)}% faults`, () => {
  beforeAll(() => {
    figures.length = 0;
  });

  afterAll(() => {
    const total = (f: (s: SeedFigures) => number) => figures.reduce((n, s) => n + f(s), 0);
    const byKind: Record<string, number> = {};
    for (const s of figures)
      for (const [k, n] of Object.entries(s.faults)) byKind[k] = (byKind[k] ?? 0) + n;
    console.log(
      [
        `fault suite at ${Math.round(RATE * 100)}%: ${figures.filter((s) => s.converged).length} of ${figures.length} seeds converged`,
        `  re-runs: ${total((s) => s.reruns)}; faults injected: ${JSON.stringify(byKind)}`,
        `  duplicates: ${total((s) => s.duplicates.length)}, leaks: ${total((s) => s.leaks.length)}, orphans: ${total((s) => s.orphans.length)}`,
        `  users leaked (counted by the emulator: the API cannot list users): ${total((s) => s.unlistableUsers)}, errors naming a user to look for: ${total((s) => s.usersNamed)}`,
        ...figures
          .filter((s) => !s.converged || s.firstErrors.length > 0)
          .map(
            (s) =>
              `  seed ${s.seed}: ${s.converged ? "converged" : "DID NOT CONVERGE"} after ${s.reruns} re-runs; ${[...s.duplicates, ...s.leaks, ...s.orphans, ...s.firstErrors].join("; ")}`,
          ),
      ].join("\n"),
    );
  });

  // Each seed has its own emulator and state (and so its own create journal): they run side by side.
  it.concurrent.for(Array.from({ length: SEEDS }, (_, i) => i + 1))(
    "seed %i converges with nothing duplicated, leaked or orphaned",
    { timeout: 600_000 },
    async (seed, { expect }) => {
      const result = await runSeed(seed);
      figures.push(result);
      expect({
        duplicates: result.duplicates,
        leaks: result.leaks,
        orphans: result.orphans,
      }).toEqual({
        duplicates: [],
        leaks: [],
        orphans: [],
      });
      expect(result.converged, result.firstErrors.join("\n")).toBe(true);
      // No user left behind by a lost create answer, though no call lists users.
      expect(result.unlistableUsers).toBe(0);
    },
  );
});
