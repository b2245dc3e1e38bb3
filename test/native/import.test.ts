/**
 * `pulumi import` on the native provider, through the local engine's import step (step.go
 * ImportStep: Read with the id alone, Check, Diff): objects made outside Pulumi, of every kind
 * the API can read, are adopted by the `import` resource option and by the import command, and
 * the next `up` changes nothing. A User, which the API cannot read, says why it cannot be.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existingServerIn } from "../support/emulator";
import { EXIT_ERROR, EXIT_OK, type LocalEngine } from "../support/local-engine/engine.ts";
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
      const urnOf = (name: string) =>
        fx.engine.resources().find((r) => nameOf(r.urn) === name)?.urn ?? "";
      // Dependents first, as the CLI refuses to forget a resource others depend on.
      for (const name of ["att", "web", "fw", "role", "tag", "key"]) e.stateDelete(urnOf(name));
      expect(fx.engine.resources().filter((r) => nameOf(r.urn) in TOKENS)).toEqual([]);

      const specs = [
        { name: "key", id: ids["sshKey"] },
        { name: "tag", id: ids["tag"] },
        { name: "role", id: ids["role"] },
        { name: "fw", id: ids["group"] },
        { name: "web", id: ids["server"] },
        { name: "att", id: ids["attachment"] },
      ].map((s) => ({ type: TOKENS[s.name] ?? "", name: s.name, id: s.id ?? "" }));
      const imported = await e.import(specs);
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
