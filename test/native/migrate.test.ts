/**
 * The migration path from the dynamic resources to the native provider that keeps every object:
 * switch the program to `pulumi-cloudinfra/native` and give each resource an alias from its
 * dynamic type. The engine then finds each resource's old state under its new URN, asks the
 * native provider's DiffConfig whether the change of provider needs a replacement (it never
 * does: step_generator.go `providerChanged`), and diffs the resource on the native provider:
 * nothing is created, replaced or deleted, the ids stay, secrets stay secret.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_OK, type LocalEngine } from "../support/local-engine/engine.ts";
import { secretValue } from "../support/local-engine/values.ts";
import {
  changesByName,
  expectExit,
  expectNoSecretInState,
  expectNothingLeft,
  nameOf,
  type ProgramFixture,
  ROOT,
  report,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "migrate");
const TIMEOUT = 180_000;
const NAMES = ["key", "readers", "bot", "fw", "web", "web-fw", "env"];
let fx: ProgramFixture;

const engine = (flavour: "dynamic" | "native"): LocalEngine =>
  fx.engineWith({ config: { "migrate:flavour": flavour } });

/** Type, id and provider package of each managed resource, by name. */
function resourcesByName(): Record<string, { type: string; id: string; provider: string }> {
  const out: Record<string, { type: string; id: string; provider: string }> = {};
  for (const r of fx.engine.resources()) {
    if (!NAMES.includes(nameOf(r.urn))) continue;
    const provider = /::pulumi:providers:([\w-]+)::/.exec(r.provider ?? "")?.[1] ?? "";
    out[nameOf(r.urn)] = { type: r.type, id: r.id ?? "", provider };
  }
  return out;
}

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
});
afterAll(async () => fx?.close());

describe("migrating a stack from the dynamic resources to the native provider", () => {
  it(
    "keeps every object: no create, replace or delete, the same ids, secrets still secret",
    async () => {
      const before = await engine("dynamic").up();
      expectExit(before, EXIT_OK);
      const dynamic = resourcesByName();
      expect(Object.keys(dynamic).sort()).toEqual([...NAMES].sort());
      for (const r of Object.values(dynamic)) expect(r.provider).toBe("pulumi-nodejs");
      const servers = (await fx.client.servers.list()).map((s) => s.id);
      const secrets = ["botApiKey", "privateKey"].map((k) =>
        String(secretValue(before.outputs[k] ?? null)),
      );

      const preview = await engine("native").preview();
      expectExit(preview, EXIT_OK);
      expect(changesByName(preview), report(preview)).toEqual({});

      const up = await engine("native").up();
      expectExit(up, EXIT_OK);
      expect(changesByName(up), report(up)).toEqual({});
      const native = resourcesByName();
      for (const name of NAMES) {
        const kind = dynamic[name]?.type.split(":").at(-1) ?? "";
        expect(native[name]).toEqual({
          type: `cloudinfra:index:${kind}`,
          id: dynamic[name]?.id,
          provider: "cloudinfra",
        });
      }
      expect((await fx.client.servers.list()).map((s) => s.id)).toEqual(servers);
      // The dynamic default provider is gone with its last resource; the outputs kept their secrets.
      expect(fx.engine.resources().some((r) => r.type === "pulumi:providers:pulumi-nodejs")).toBe(
        false,
      );
      for (const [i, k] of ["botApiKey", "privateKey"].entries()) {
        expect(up.outputs[k]).toMatchObject({ value: secrets[i] });
      }
      expectNoSecretInState(fx.engine, [fx.emulator.apiKey, ...secrets]);

      const gate = await engine("native").refresh({ previewOnly: true, expectNoChanges: true });
      expectExit(gate, EXIT_OK);
      const again = await engine("native").up();
      expectExit(again, EXIT_OK);
      expect(again.changes).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "the migrated stack is destroyed by the native provider",
    async () => {
      const destroy = await engine("native").destroy();
      expectExit(destroy, EXIT_OK);
      await expectNothingLeft(fx.client);
    },
    TIMEOUT,
  );
});
