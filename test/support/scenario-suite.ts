/**
 * The scenario suite, for either flavour of the resources (`dynamic`: the package's classes on the
 * dynamic-provider host; `native`: the same program on the `cloudinfra` provider plugin).
 *
 * One user's program over every resource kind and data source, in versions, run after run
 * through the local engine: in-place changes update exactly the changed field, replace-forcing
 * changes replace (create before delete by default, delete before replace with its dependents
 * where the provider asks), a removed resource is deleted, changes made outside Pulumi fail the
 * drift gate naming exactly those fields and objects, and `up --refresh` repairs them.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StepRecord } from "./local-engine/deployment.ts";
import {
  EXIT_EXPECT_NO_CHANGES,
  EXIT_OK,
  type LocalEngine,
  type RunResult,
} from "./local-engine/engine.ts";
import { secretValue } from "./local-engine/values.ts";
import {
  changesByName,
  expectExit,
  expectNoSecretInState,
  expectNothingLeft,
  fieldsByName,
  nameOf,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "./programs";

export const SCENARIO_PROJECT = join(ROOT, "test", "programs", "scenario");

/**
 * Each step runs the engine three times or more (up and both drift gates), each with a program
 * and provider processes: ~20 s on an idle machine, and a step cut short leaves pending
 * operations that fail every later step.
 */
const STEP_TIMEOUT = 180_000;

/** Declares the whole suite for one flavour; every step asserts the same for both. */
export function scenarioSuite(flavour: "dynamic" | "native"): void {
  let fx: ProgramFixture;
  /** Every secret a run produced (API keys, private keys): none may reach the state in clear. */
  const secrets = new Set<string>();

  function engineAt(version: number, env: NodeJS.ProcessEnv = {}): LocalEngine {
    return fx.engineWith({
      config: { "scenario:version": String(version), "scenario:flavour": flavour },
      ...(Object.keys(env).length > 0 ? { env: { ...fx.engine.options.env, ...env } } : {}),
    });
  }

  const LEGACY = { PULUMI_ENABLE_LEGACY_REFRESH_DIFF: "true" };

  /** `up` at `version`, then the state keeps every secret wrapped and both drift gates pass. */
  async function upTo(version: number): Promise<RunResult> {
    const result = await engineAt(version).up();
    expectExit(result, EXIT_OK);
    for (const k of ["botApiKey", "generatedKey"]) {
      const v = result.outputs[k];
      expect(v, `${k} is secret`).toMatchObject({ value: expect.any(String) });
      secrets.add(String(secretValue(v ?? null)));
    }
    expectNoSecretInState(fx.engine, [fx.emulator.apiKey, ...secrets]);
    for (const [env, gate] of await driftGates(version)) {
      expect(changesByName(gate), `refresh straight after up (${JSON.stringify(env)})`).toEqual({});
      expectExit(gate, EXIT_OK);
    }
    return result;
  }

  /**
   * `refresh --preview-only --expect-no-changes` at `version`, in the default and the legacy diff
   * mode, side by side: a preview writes nothing and takes no lock, so neither sees the other.
   */
  async function driftGates(version: number): Promise<[NodeJS.ProcessEnv, RunResult][]> {
    return Promise.all(
      [{}, LEGACY].map(async (env): Promise<[NodeJS.ProcessEnv, RunResult]> => {
        const gate = await engineAt(version, env).refresh({
          previewOnly: true,
          expectNoChanges: true,
        });
        return [env, gate];
      }),
    );
  }

  function indexOf(result: RunResult, name: string, op: StepRecord["op"]): number {
    const i = result.steps.findIndex((s) => nameOf(s.urn) === name && s.op === op);
    expect(i, `${op} of ${name}`).toBeGreaterThanOrEqual(0);
    return i;
  }

  beforeAll(async () => {
    fx = await startProgramFixture(SCENARIO_PROJECT);
  });
  afterAll(async () => fx?.close());

  describe("a program over every kind, version after version", { timeout: STEP_TIMEOUT }, () => {
    it("v1: preview plans every resource and creates nothing; up creates them and reads two", async () => {
      const preview = await engineAt(1).preview();
      expectExit(preview, EXIT_OK);
      expect(Object.keys(changesByName(preview)).sort()).toEqual(
        [
          "app",
          "app-fw",
          "bot",
          "db",
          "env",
          "fw",
          "fw2",
          "key-a",
          "key-gen",
          "ops",
          "readers",
          "spare",
          "temp",
        ].sort(),
      );
      expect(await fx.client.servers.list()).toEqual([]);

      const up = await upTo(1);
      // Each flavour's resources are served by its own provider.
      const custom = fx.engine
        .resources()
        .filter((r) => r.custom && !r.type.startsWith("pulumi:providers:"));
      expect(custom).toHaveLength(15);
      for (const r of custom) {
        expect(r.type).toMatch(
          flavour === "native"
            ? /^cloudinfra:index:\w+$/
            : /^pulumi-nodejs:dynamic\/cloudinfra:\w+$/,
        );
        expect(r.provider).toMatch(
          flavour === "native"
            ? /::pulumi:providers:cloudinfra::default::/
            : /::pulumi:providers:pulumi-nodejs::default::/,
        );
      }
      expect(new Set(Object.values(changesByName(up)))).toEqual(new Set(["create"]));
      expect(
        up.steps
          .filter((s) => s.op === "read")
          .map((s) => nameOf(s.urn))
          .sort(),
      ).toEqual(["app-read", "fw-read"]);
      // Data sources and X.get outputs reach the program.
      expect(up.outputs["appReadName"]).toBe("app");
      expect(up.outputs["fwReadRules"]).toEqual([
        { action: "ACCEPT", proto: "tcp", dport: "22", source: "198.51.100.0/24" },
      ]);
      expect(up.outputs["germanyCallingCode"]).toBe(49);
      expect(Number(up.outputs["permissionCount"])).toBeGreaterThan(10);

      const again = await engineAt(1).up();
      expectExit(again, EXIT_OK);
      expect(again.changes).toEqual([]);
    });

    it("v2: renames update in place, each with exactly that field; a user's role changes in place", async () => {
      const up = await upTo(2);
      expect(changesByName(up)).toEqual({
        app: "update",
        env: "update",
        ops: "update",
        fw: "update",
        bot: "update",
      });
      expect(fieldsByName(up)).toEqual({
        app: ["name"],
        env: ["name"],
        ops: ["name"],
        fw: ["name"],
        bot: ["roleId"],
      });
    });

    it("v3: firewall switch, tag colour, descriptions and a server's groups update in place", async () => {
      const up = await upTo(3);
      expect(fieldsByName(up)).toEqual({
        app: ["firewallEnabled"],
        env: ["color"],
        ops: ["description"],
        fw: ["description"],
        db: ["securityGroupIds"],
      });
      expect(new Set(Object.values(changesByName(up)))).toEqual(new Set(["update"]));
    });

    it("v4: power state, tag data, role permissions and group rules update in place", async () => {
      const up = await upTo(4);
      expect(fieldsByName(up)).toEqual({
        app: ["powerState"],
        env: ["data"],
        ops: ["permissions"],
        fw: ["rules"],
      });
      const [app] = (await fx.client.servers.list()).filter(
        (s) => s.user_defined_name === "app-renamed",
      );
      expect(app?.status).toBe("stopped");
    });

    it("v5: a tag's servers update in place", async () => {
      const up = await upTo(5);
      expect(fieldsByName(up)).toEqual({ env: ["serverIds"] });
    });

    it("v6: a new plan and a new user name replace, creating the new before deleting the old", async () => {
      const before = (await fx.client.servers.list()).find((s) => s.user_defined_name === "db");
      const up = await upTo(6);
      expect(changesByName(up)).toEqual({ db: "replace", bot: "replace", env: "update" });
      expect(fieldsByName(up)).toEqual({ db: ["planId"], bot: ["name"], env: ["serverIds"] });
      for (const name of ["db", "bot"]) {
        expect(indexOf(up, name, "create-replacement")).toBeLessThan(
          indexOf(up, name, "delete-replaced"),
        );
      }
      const after = (await fx.client.servers.list()).filter((s) => s.user_defined_name === "db");
      expect(after).toHaveLength(1);
      expect(after[0]?.id).not.toBe(before?.id);
    });

    it("v7: renaming a key with the same material deletes before replacing, dependents first", async () => {
      const up = await upTo(7);
      expect(changesByName(up)).toEqual({
        "key-a": "replace",
        app: "replace",
        "app-fw": "replace",
        env: "update",
      });
      expect(fieldsByName(up)).toEqual({
        "key-a": ["name"],
        app: ["sshKeyIds"],
        "app-fw": ["serverId"],
        env: ["serverIds"],
      });
      const order = ["app-fw", "app", "key-a"].map((n) => indexOf(up, n, "delete-replaced"));
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(order.at(-1)).toBeLessThan(indexOf(up, "key-a", "create-replacement"));
      expect(indexOf(up, "key-a", "create-replacement")).toBeLessThan(
        indexOf(up, "app", "create-replacement"),
      );
      expect((await fx.client.keys.list()).map((k) => k.name).sort()).toEqual([
        "key-a-renamed",
        "key-gen",
        "spare",
      ]);
    });

    it("v8: resources removed from the program are deleted", async () => {
      const up = await upTo(8);
      expect(changesByName(up)).toEqual({ ops: "delete", temp: "delete" });
      expect((await fx.client.tags.list()).map((t) => t.name)).toEqual(["environment"]);
    });
  });

  describe("changes made outside Pulumi", { timeout: STEP_TIMEOUT }, () => {
    it("fail the drift gate with exit 7, naming exactly the changed fields and the deleted objects", async () => {
      const servers = await fx.client.servers.list();
      const app = servers.find((s) => s.user_defined_name === "app-renamed");
      if (!app) throw new Error("no app server");
      await fx.client.servers.update(app.id, { user_defined_name: "renamed-outside" });
      const [tag] = await fx.client.tags.list();
      if (!tag) throw new Error("no tag");
      await fx.client.tags.update(tag.id, {
        name: tag.name,
        color: "#ABCDEF",
        ...(tag.data !== undefined && tag.data !== null ? { data: tag.data } : {}),
        server_ids: (tag.servers ?? []).map((s) => s.id),
      });
      const readers = (await fx.client.iam.listRoles()).find((r) => r.name === "readers");
      const all = await fx.client.iam.listPermissions();
      const ids = all
        .filter((p) => ["tags:read", "servers:read"].includes(p.name))
        .map((p) => p.id);
      if (!readers) throw new Error("no role");
      await fx.client.iam.updateRole(readers.id, { name: "readers", permission_ids: ids });
      const group = (await fx.client.firewall.listPage()).data.find((g) => g.name === "firewall");
      if (!group) throw new Error("no group");
      await fx.client.firewall.update(group.id, {
        name: "firewall",
        description: "fw two",
        rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "198.51.100.0/24" }],
      });
      await fx.client.firewall.detachServer(group.id, app.id);
      const spare = (await fx.client.keys.list()).find((k) => k.name === "spare");
      if (!spare) throw new Error("no spare key");
      await fx.client.keys.delete(spare.id);

      // The objects the program reads with X.get changed too: a refresh shows their new outputs.
      const expected = {
        app: "update",
        "app-read": "update",
        "fw-read": "update",
        env: "update",
        readers: "update",
        fw: "update",
        spare: "delete",
        "app-fw": "delete",
      };
      const gate = await engineAt(8).refresh({ previewOnly: true, expectNoChanges: true });
      expectExit(gate, EXIT_EXPECT_NO_CHANGES);
      expect(changesByName(gate)).toEqual(expected);
      expect(fieldsByName(gate)).toMatchObject({
        app: ["name"],
        env: ["color"],
        readers: ["permissions"],
        fw: ["rules"],
        spare: [],
        "app-fw": [],
      });
      // The preview changed nothing: the same gate fails again, in the legacy diff mode too.
      const legacy = await engineAt(8, LEGACY).refresh({
        previewOnly: true,
        expectNoChanges: true,
      });
      expectExit(legacy, EXIT_EXPECT_NO_CHANGES);
      expect(Object.keys(changesByName(legacy)).sort()).toEqual(Object.keys(expected).sort());
    });

    it("are repaired by up --refresh, after which the drift gate passes", async () => {
      const repair = await engineAt(8).up({ refresh: true });
      expectExit(repair, EXIT_OK);
      const program = repair.steps.filter((s) => s.op !== "refresh");
      const byName = Object.fromEntries(
        program.filter((s) => !["same", "read"].includes(s.op)).map((s) => [nameOf(s.urn), s.op]),
      );
      expect(byName).toMatchObject({
        app: "update",
        env: "update",
        readers: "update",
        fw: "update",
      });
      expect(byName["spare"]).toBe("create");
      expect(byName["app-fw"]).toBe("create");
      for (const [env, gate] of await driftGates(8)) {
        expect(changesByName(gate), JSON.stringify(env)).toEqual({});
        expectExit(gate, EXIT_OK);
      }
      expect((await fx.client.servers.list()).map((s) => s.user_defined_name).sort()).toEqual([
        "app-renamed",
        "db",
      ]);
    });

    it("destroy leaves nothing behind", async () => {
      const destroy = await engineAt(8).destroy();
      expectExit(destroy, EXIT_OK);
      await expectNothingLeft(fx.client);
      expect(fx.engine.resources()).toEqual([]);
    });
  });
}
