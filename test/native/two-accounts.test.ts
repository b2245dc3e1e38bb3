/**
 * Several accounts in one program, the native provider's explicit providers: the default
 * provider (stack config) and `new cloudinfra.Provider("other", {apiKey})`, each its own plugin
 * process with its own configuration (CheckConfig, DiffConfig, Configure) and session. Every
 * object lands in its own account, a refresh finds nothing to change, and the other account's key
 * never reaches the state, the plugin's output or an error in clear.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { localEngineCliOn } from "../support/local-engine/by-hand.ts";
import { EXIT_ERROR, EXIT_OK, type LocalEngine } from "../support/local-engine/engine.ts";
import {
  changesByName,
  expectExit,
  expectNoSecretInState,
  expectNothingLeft,
  nameOf,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "two-accounts");
const TIMEOUT = 120_000;

let fx: ProgramFixture;
let other: { apiKey: string; accountId: number; client: CloudInfraClient };

function engine(): LocalEngine {
  return fx.engineWith({
    secretConfig: { "cloudinfra:apiKey": fx.emulator.apiKey, "accounts:otherApiKey": other.apiKey },
  });
}

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
  const account = await fx.emulator.admin.createAccount();
  other = {
    apiKey: account.api_key,
    accountId: account.account_id,
    client: new CloudInfraClient({
      endpoint: fx.emulator.endpoint,
      apiKey: account.api_key,
      caCert: fx.emulator.caCert,
    }),
  };
});
afterAll(async () => {
  await other?.client.close();
  await fx?.close();
});

describe("two accounts in one program", () => {
  it(
    "each object lands in the account of its provider; refresh then finds nothing to change",
    async () => {
      const up = await engine().up();
      expectExit(up, EXIT_OK);
      expect(changesByName(up)).toEqual({
        ours: "create",
        theirs: "create",
        "our-role": "create",
        "their-role": "create",
        "their-key": "create",
      });
      // The same names in both accounts: each provider wrote to its own.
      const ourTags = (await fx.client.tags.list()).map((t) => [t.name, t.color.toLowerCase()]);
      const theirTags = (await other.client.tags.list()).map((t) => [
        t.name,
        t.color.toLowerCase(),
      ]);
      expect(ourTags).toEqual([["shared", "#111111"]]);
      expect(theirTags).toEqual([["shared", "#222222"]]);
      const custom = (roles: { name: string; system_role?: boolean | null }[]) =>
        roles.filter((r) => r.system_role !== true).map((r) => r.name);
      expect(custom(await fx.client.iam.listRoles())).toEqual(["readers"]);
      expect(custom(await other.client.iam.listRoles())).toEqual(["readers"]);
      expect((await fx.client.keys.list()).map((k) => k.name)).toEqual([]);
      expect((await other.client.keys.list()).map((k) => k.name)).toEqual(["deploy"]);
      // Data sources invoked on the explicit provider answer for its account.
      expect(up.outputs["theirAccount"]).toBe(other.accountId);
      expect(up.outputs["ourAccount"]).not.toBe(other.accountId);

      const providerOf = (name: string) =>
        fx.engine.resources().find((r) => nameOf(r.urn) === name)?.provider ?? "";
      expect(providerOf("theirs")).toMatch(/::pulumi:providers:cloudinfra::other::/);
      expect(providerOf("their-key")).toMatch(/::pulumi:providers:cloudinfra::other::/);
      expect(providerOf("ours")).toMatch(/::pulumi:providers:cloudinfra::default::/);
      const privateKey = up.outputs["theirPrivateKey"];
      expect(privateKey, "the generated key is a secret output").toMatchObject({
        value: expect.stringContaining("PRIVATE KEY"),
      });
      const secrets = [fx.emulator.apiKey, other.apiKey];
      expectNoSecretInState(fx.engine, secrets);
      for (const secret of secrets) {
        expect(up.hostStderr).not.toContain(secret);
        expect(up.programStderr).not.toContain(secret);
      }

      const gate = await engine().refresh({ previewOnly: true, expectNoChanges: true });
      expectExit(gate, EXIT_OK);
      expect(changesByName(gate)).toEqual({});
      const again = await engine().up();
      expectExit(again, EXIT_OK);
      expect(again.changes).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "`import <type> <name> <id> --provider name=urn` adopts an object of the other account through its provider",
    async () => {
      const theirs = fx.engine.resources().find((r) => nameOf(r.urn) === "theirs");
      if (theirs?.id === undefined || theirs.provider === undefined) throw new Error("no tag");
      const providerUrn = theirs.provider.split("::").slice(0, -1).join("::");
      engine().stateDelete(theirs.urn);
      const target = { ...fx.engine.options, projectDir: PROJECT, emulator: fx.emulator };
      const args = ["import", "cloudinfra:index:Tag", "theirs", theirs.id];
      // The default provider reads our account, where no such tag exists.
      const without = await localEngineCliOn(target, args);
      expect(without.status).toBe(EXIT_ERROR);
      expect(without.stderr).toContain(`resource '${theirs.id}' does not exist`);
      expect(fx.engine.resources().some((r) => r.urn === theirs.urn)).toBe(false);

      const run = await localEngineCliOn(target, [...args, "--provider", `other=${providerUrn}`]);
      expect(run.status, run.stderr).toBe(EXIT_OK);
      const adopted = fx.engine.resources().find((r) => r.urn === theirs.urn);
      expect(adopted).toMatchObject({ id: theirs.id, provider: theirs.provider });
      expect(adopted?.inputs).toMatchObject({ name: "shared", color: "#222222" });
      const again = await engine().up();
      expectExit(again, EXIT_OK);
      expect(again.changes).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "destroy empties both accounts",
    async () => {
      const destroy = await engine().destroy();
      expectExit(destroy, EXIT_OK);
      await expectNothingLeft(fx.client);
      await expectNothingLeft(other.client);
      expect(fx.engine.resources()).toEqual([]);
    },
    TIMEOUT,
  );
});
