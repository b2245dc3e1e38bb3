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
/** The type token of a kind, less its name, in each flavour. */
const TYPE = { dynamic: "pulumi-nodejs:dynamic/cloudinfra:", native: "cloudinfra:index:" };

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

/** The errors the run showed, each as its message. */
function errors(run: RunResult): string[] {
  return run.diagnostics.filter((d) => d.severity === "error").map((d) => d.message.trimEnd());
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
      expect(errors(run)).toEqual([
        [
          "bad-source.yaml: 1 problem; nothing was registered",
          '  bad-source.yaml:7:58: securityGroups.web.rules[0].source: expected a CIDR block, for example 10.0.0.0/8 or 2001:db8::/32: "300" is not a number from 0 to 255 (got "10.0.0.300/8")',
        ].join("\n"),
      ]);
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
      expect(errors(run)[0]).toBe(
        `urn:pulumi:dev::cloudinfra-user-mistakes::${TYPE[flavour]}Server::web has check errors:\n  planId: is required\n  planID: unknown argument; did you mean "planId"?`,
      );
      expect(await fx.client.servers.list()).toEqual([]);
    },
    TIMEOUT,
  );
});

describe.each(FLAVOURS)("two Tags named dup (%s)", (flavour) => {
  it(
    "the second one's error never advises adopting the stack's own tag",
    async () => {
      const state = `${flavour}-dup`;
      expectExit(await up(flavour, "one-dup-tag", state), EXIT_OK);
      const t1 = (await fx.client.tags.list()).find((t) => t.name === "dup");
      const run = await up(flavour, "two-dup-tags", state);
      expectExit(run, EXIT_ERROR);
      const error = errors(run).find((e) => e.includes("already exists")) ?? "";
      expect(error).toContain(
        `a tag named "dup" already exists (tag id ${t1?.id}); tag names are unique in an account: choose another name, or delete or rename the existing tag; another resource of this stack manages tag ${t1?.id}, so it cannot be adopted`,
      );
      expect(error).not.toContain("adoptId");
      await fx.client.tags.delete(String(t1?.id));
    },
    TIMEOUT,
  );
});

describe("adopting a stopped server without powerState", () => {
  it(
    "leaves it stopped, then and at the next up",
    async () => {
      const [made] = await fx.client.servers.create({
        plan_id: 2,
        image: "debian-12",
        user_defined_name: "kept",
      });
      const id = made?.id ?? 0;
      await fx.emulator.admin.advance({ server_id: id });
      await fx.client.servers.manage(id, { action: "stop" });
      await fx.emulator.admin.advance({ server_id: id });
      expect((await fx.client.servers.get(id)).status).toBe("stopped");
      const first = await up("dynamic", "adopt-server", "adopt", { adoptId: String(id) });
      expectExit(first, EXIT_OK);
      expect((await fx.client.servers.get(id)).status).toBe("stopped");
      const second = await up("dynamic", "adopt-server", "adopt", { adoptId: String(id) });
      expectExit(second, EXIT_OK);
      expect(changesByName(second)).toEqual({});
      expect((await fx.client.servers.get(id)).status).toBe("stopped");
    },
    TIMEOUT,
  );
});

describe.each(FLAVOURS)("a misspelt plan name through a server and a tag (%s)", (flavour) => {
  it(
    "says the data source, the argument, the value and the nearest name, without a stack trace",
    async () => {
      const run = await up(flavour, "plan-name", `${flavour}-plan`);
      expectExit(run, EXIT_ERROR);
      const shown = errors(run);
      expect(shown[0]).toMatch(
        /^getPlan: no plan matches \{name: "VPS SS"\} \(did you mean "VPS S" or "VPS XS" or "VPS L"\?\); available plans: "VPS XS" \(id 1, VPS, 3\.49\), .* \(needed by the input "planId", then "serverIds"\)$/,
      );
      expect(told(run)).not.toContain("unhandled exception");
      expect(told(run)).not.toMatch(/^\s+at /m);
    },
    TIMEOUT,
  );
});
