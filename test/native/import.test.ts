/**
 * `pulumi import` on the native provider, through the local engine's import step (step.go
 * ImportStep: Read with the id alone, Check, Diff): objects made outside Pulumi, of every kind
 * the API can read, are adopted by the `import` resource option, by the import command and by
 * its bulk form (`import --file`, the CLI's import file), and the next `up` changes nothing. A
 * User, which the API cannot read, says why it cannot be.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existingServerIn } from "../support/emulator";
import { localEngineCliOn } from "../support/local-engine/by-hand.ts";
import { EXIT_ERROR, EXIT_OK, type LocalEngine } from "../support/local-engine/engine.ts";
import { importSpecsOf, inlineImportFile } from "../support/local-engine/import-file.ts";
import {
  changesByName,
  expectExit,
  nameOf,
  type ProgramFixture,
  ROOT,
  report,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "import");
/** Each test runs the engine several times, a program and a plugin process each. */
const TIMEOUT = 120_000;
const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X import@ci";

let fx: ProgramFixture;
let ids: Record<string, string>;
let plan: { planId: string; image: string };

function engine(mode: "option" | "command", extra: Record<string, string> = {}): LocalEngine {
  return fx.engineWith({
    config: {
      "adopt:ids": JSON.stringify(ids),
      "adopt:mode": mode,
      "adopt:publicKey": PUBLIC_KEY,
      "adopt:planId": plan.planId,
      "adopt:image": plan.image,
      ...extra,
    },
  });
}

const TOKENS: Record<string, string> = {
  key: "cloudinfra:index:SshKey",
  tag: "cloudinfra:index:Tag",
  role: "cloudinfra:index:Role",
  fw: "cloudinfra:index:SecurityGroup",
  web: "cloudinfra:index:Server",
  att: "cloudinfra:index:SecurityGroupAttachment",
};

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
  const c = fx.client;
  const key = await c.keys.create({ name: "imp-key", type: "import", public_key: PUBLIC_KEY });
  const tag = await c.tags.create({ name: "imp-tag", color: "#123456", data: "owner=ops" });
  const permissions = await c.iam.listPermissions();
  const tagsRead = permissions.filter((p) => p.name === "tags:read").map((p) => p.id);
  const role = await c.iam.createRole({
    name: "imp-role",
    description: "readers",
    permission_ids: tagsRead,
  });
  await c.firewall.create({
    name: "imp-fw",
    rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }],
  });
  const group = (await c.firewall.listPage()).data.find((g) => g.name === "imp-fw");
  const server = await existingServerIn(fx.emulator, c, "imp-web");
  if (group === undefined) throw new Error("the group was not made");
  await c.firewall.attachServer(group.id, server.id);
  ids = {
    sshKey: String(key.key.id),
    tag: String(tag.id),
    role: String(role.id),
    group: String(group.id),
    server: String(server.id),
    attachment: `${group.id}/${server.id}`,
  };
  plan = { planId: String(server.plan_id), image: "ubuntu-24.04" };
});
afterAll(async () => fx?.close());

/** The six imported resources, dependents first, as `state delete` must forget them. */
const DEPENDENTS_FIRST = ["att", "web", "fw", "role", "tag", "key"];

function forgetImported(e: LocalEngine): void {
  const urnOf = (name: string) =>
    fx.engine.resources().find((r) => nameOf(r.urn) === name)?.urn ?? "";
  for (const name of DEPENDENTS_FIRST) e.stateDelete(urnOf(name));
  expect(fx.engine.resources().filter((r) => nameOf(r.urn) in TOKENS)).toEqual([]);
}

/** `{type, name, id}` of each importable object, as the import command and file name them. */
function importSpecs(): { type: string; name: string; id: string }[] {
  return [
    { name: "key", id: ids["sshKey"] },
    { name: "tag", id: ids["tag"] },
    { name: "role", id: ids["role"] },
    { name: "fw", id: ids["group"] },
    { name: "web", id: ids["server"] },
    { name: "att", id: ids["attachment"] },
  ].map((s) => ({ type: TOKENS[s.name] ?? "", name: s.name, id: s.id ?? "" }));
}

/** `npm run local-engine -- <args>` on this project and stack, against the test emulator. */
const byHand = (args: string[]) =>
  localEngineCliOn({ ...fx.engine.options, projectDir: PROJECT, emulator: fx.emulator }, args);

describe("pulumi import on the native provider", () => {
  it(
    "the import option adopts one object of every readable kind; the next up changes nothing",
    async () => {
      const before = {
        servers: (await fx.client.servers.list()).map((s) => s.id),
        tags: (await fx.client.tags.list()).map((t) => t.id),
      };
      const preview = await engine("option").preview();
      expectExit(preview, EXIT_OK);
      const up = await engine("option").up();
      expectExit(up, EXIT_OK);
      expect(changesByName(up)).toEqual(
        Object.fromEntries(Object.keys(TOKENS).map((name) => [name, "import"])),
      );
      for (const r of fx.engine.resources().filter((r) => nameOf(r.urn) in TOKENS)) {
        expect(r.type).toBe(TOKENS[nameOf(r.urn)]);
      }
      // Nothing was created: the same objects, no more.
      expect((await fx.client.servers.list()).map((s) => s.id)).toEqual(before.servers);
      expect((await fx.client.tags.list()).map((t) => t.id)).toEqual(before.tags);

      const again = await engine("option").up();
      expectExit(again, EXIT_OK);
      expect(again.changes, report(again)).toEqual([]);
      const gate = await engine("option").refresh({ previewOnly: true, expectNoChanges: true });
      expectExit(gate, EXIT_OK);
    },
    TIMEOUT,
  );

  it(
    "`import <type> <name> <id>` after `state delete` adopts them again; the next up changes nothing",
    async () => {
      const e = engine("command");
      forgetImported(e);
      const imported = await e.import(importSpecs());
      expectExit(imported, EXIT_OK);
      expect(changesByName(imported)).toEqual(
        Object.fromEntries(Object.keys(TOKENS).map((name) => [name, "import"])),
      );
      const up = await e.up();
      expectExit(up, EXIT_OK);
      expect(up.changes, report(up)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "`import --file` (the CLI's bulk format) adopts every readable kind in one run; the next up changes nothing",
    async () => {
      const e = engine("command");
      forgetImported(e);
      const file = join(dirname(fx.engine.options.stateFile), "import.json");
      // `name` is the code's name, `logicalName` Pulumi's: the state takes the logical one.
      const resources = importSpecs().map(({ type, name, id }) => ({
        type,
        name: `${name}Code`,
        logicalName: name,
        id,
      }));
      writeFileSync(file, JSON.stringify({ resources }));
      const run = await byHand(["import", "--file", file]);
      expect(run.status, run.stderr).toBe(EXIT_OK);
      for (const name of Object.keys(TOKENS)) {
        // The CLI's row for an import: `=` and the type, the name, `imported (<time>)`.
        expect(run.stdout).toMatch(
          new RegExp(`^ = {2}${TOKENS[name]} ${name} imported \\([\\d.]+s\\)$`, "m"),
        );
      }
      const adopted = fx.engine.resources().filter((r) => nameOf(r.urn) in TOKENS);
      expect(Object.fromEntries(adopted.map((r) => [nameOf(r.urn), r.type]))).toEqual(TOKENS);
      expect(Object.fromEntries(adopted.map((r) => [nameOf(r.urn), r.id]))).toEqual(
        Object.fromEntries(importSpecs().map((s) => [s.name, s.id])),
      );
      const up = await e.up();
      expectExit(up, EXIT_OK);
      expect(up.changes, report(up)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "`import --file` with a User among readable kinds is refused whole: the User's reason, nothing imported",
    async () => {
      const e = engine("command");
      forgetImported(e);
      const file = join(dirname(fx.engine.options.stateFile), "import-user.json");
      const resources = [
        ...importSpecs().filter((s) => s.name === "tag"),
        { type: "cloudinfra:index:User", name: "bot", id: "1" },
      ];
      writeFileSync(file, JSON.stringify({ resources }));
      const run = await byHand(["import", "--file", file]);
      expect(run.status).toBe(EXIT_ERROR);
      expect(run.stderr).toMatch(
        /User "1" cannot be imported: the API has no call that reads a user/,
      );
      expect(
        fx.engine.resources().filter((r) => nameOf(r.urn) in TOKENS || nameOf(r.urn) === "bot"),
      ).toEqual([]);
      // The single form still adopts them all again (the state as the tests before left it).
      const imported = await e.import(importSpecs());
      expectExit(imported, EXIT_OK);
    },
    TIMEOUT,
  );

  it("an import file is checked before anything runs, each problem named in the CLI's words", () => {
    const problems = (file: unknown) => {
      try {
        importSpecsOf(typeof file === "function" ? file() : file);
        return [];
      } catch (err) {
        return String((err as Error).message).split("\n");
      }
    };
    expect(problems({ resources: [] })).toEqual([
      "'resources' must be a non-empty list of {type, name, id}",
    ]);
    expect(
      problems({
        nameTable: { acct: "urn:pulumi:dev::p::cloudinfra:index:Tag::t" },
        resources: [
          { type: "cloudinfra:index:Tag", name: "a" },
          { type: "cloudinfra:index:Tag", name: "b", id: "1", provider: "acct" },
          { type: "cloudinfra:index:Tag", name: "c", id: "2", provider: "nope" },
          { type: "cloudinfra:index:Tag", name: "c", id: "3", parent: "x" },
          { type: "pulumi:providers:cloudinfra", name: "p" },
        ],
      }),
    ).toEqual([
      "resource 'a' of type 'cloudinfra:index:Tag' has no ID",
      "the provider 'acct' for resource 'b' of type 'cloudinfra:index:Tag' is not a provider",
      "the provider 'nope' for resource 'c' of type 'cloudinfra:index:Tag' has no entry in 'nameTable'",
      "resource 'c' of type 'cloudinfra:index:Tag': 'parent' is not supported by the local engine (no parents)",
      "resource 'c' of type 'cloudinfra:index:Tag' has an ambiguous URN, set name (or logical name) to be unique",
      "resource 'p' of type 'pulumi:providers:cloudinfra' is a provider, which is created rather than read; the local engine imports only with providers already in the state",
    ]);
    const provider = "urn:pulumi:dev::p::pulumi:providers:cloudinfra::acct";
    expect(
      importSpecsOf({
        nameTable: { acct: provider },
        resources: [{ type: "cloudinfra:index:Tag", name: "t", id: "7", provider: "acct" }],
      }),
    ).toEqual([{ type: "cloudinfra:index:Tag", name: "t", id: "7", provider }]);
    // `--provider name=urn` of the inline form; a provider reference is refused with its URN.
    const inline = (spec: string) =>
      problems(() => inlineImportFile("cloudinfra:index:Tag", "t", "7", spec));
    expect(inline(`acct=${provider}`)).toEqual([]);
    expect(inline(`acct=${provider}::0b0a2a72`)).toEqual([
      `expected a URN but got a Provider Reference, use '${provider}' instead`,
    ]);
    expect(inline("acct")).toEqual(["spec must be of the form name=URN"]);
  });

  it(
    "a User cannot be imported, and the error says why",
    async () => {
      const command = await engine("command").import([
        { type: "cloudinfra:index:User", name: "bot", id: "1" },
      ]);
      expectExit(command, EXIT_ERROR);
      expect(report(command)).toMatch(
        /User "1" cannot be imported: the API has no call that reads a user/,
      );
      const option = await engine("option", { "adopt:user": "true" }).up();
      expectExit(option, EXIT_ERROR);
      expect(report(option)).toMatch(/cannot be imported: the API has no call that reads a user/);
      expect(fx.engine.resources().some((r) => nameOf(r.urn) === "bot")).toBe(false);
    },
    TIMEOUT,
  );
});
