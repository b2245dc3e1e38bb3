/**
 * The `import` option on a program that states what the API cannot read back, through the local
 * engine's import step (step.go ImportStep: Read with the id alone, Check, Diff, no replacement
 * allowed): a Server whose program lists `sshKeyIds` and an SshKey made with `generate: true`.
 * The import adopts both as the program states them; the next `up`, a refresh and the `up`
 * after it change nothing; a later change of `sshKeyIds` is a replacement again. The dynamic
 * flavour, which the engine cannot import into, adopts the same objects with `adoptId`.
 */
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT_OK, type LocalEngine } from "../support/local-engine/engine.ts";
import {
  changesByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  report,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "import-unread");
let fx: ProgramFixture;
let ids: Record<string, string>;

/** A server made with a generated key, outside Pulumi: the ids of both. */
async function keyedServer(fx: ProgramFixture): Promise<Record<string, string>> {
  const c = fx.client;
  const generated = await c.keys.create({ name: "gen-key", type: "generate" });
  const [made] = await c.servers.create({
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: "keyed-web",
    ssh_key_ids: [generated.key.id],
  });
  if (made === undefined) throw new Error("no server made");
  await fx.emulator.admin.advance({ server_id: made.id });
  return { generated: String(generated.key.id), server: String(made.id) };
}

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT, { emulator: { lifecycle: { mode: "manual" } } });
  ids = await keyedServer(fx);
});
afterAll(async () => fx?.close());

const engine = (extra: Record<string, string> = {}): LocalEngine =>
  fx.engineWith({ config: { "adopt:ids": JSON.stringify(ids), ...extra } });

it("imports a server with sshKeyIds and a generated key without a replacement; then nothing changes", async () => {
  const up = await engine().up();
  expectExit(up, EXIT_OK);
  expect(changesByName(up)).toEqual({ generated: "import", web: "import" });
  expect(up.outputs["serverKeys"]).toEqual([Number(ids["generated"])]);
  const again = await engine().up();
  expectExit(again, EXIT_OK);
  expect(again.changes, report(again)).toEqual([]);
  expectExit(await engine().refresh(), EXIT_OK);
  const afterRefresh = await engine().up();
  expectExit(afterRefresh, EXIT_OK);
  expect(afterRefresh.changes, report(afterRefresh)).toEqual([]);
  // What the program states is the stack's from now on: another key list replaces the server.
  const changed = await engine({ "adopt:keyIds": "[]" }).preview();
  expectExit(changed, EXIT_OK);
  expect(changesByName(changed)).toEqual({ web: "replace" });
}, 240_000);

it("a .get() of the same server and key reads the live objects: no import warning, nothing marked unread", async () => {
  const get = fx.engineWith({
    stateFile: join(dirname(fx.engine.options.stateFile), "get.json"),
    config: { "adopt:ids": JSON.stringify(ids), "adopt:get": "true" },
  });
  const up = await get.up();
  expectExit(up, EXIT_OK);
  expect(up.steps.filter((s) => s.op === "read").map((s) => s.urn.split("::")[3])).toEqual(
    expect.arrayContaining(["seen", "seen-key"]),
  );
  // The plugin's warnings reach the local engine as its stderr (debug lines, as the CLI shows a
  // plugin's output): none is about the objects read. The state below is the deterministic check.
  const about = [`cloudinfra: Server ${ids["server"]}:`, `cloudinfra: SshKey ${ids["generated"]}:`];
  expect(
    up.diagnostics.filter((d) => about.some((a) => d.message.includes(a))),
    report(up),
  ).toEqual([]);
  const live = (await fx.client.keys.list()).find((k) => String(k.id) === ids["generated"]);
  expect(up.outputs).toEqual({
    seenName: "keyed-web",
    seenStatus: "running",
    seenKeyFingerprint: live?.fingerprint,
  });
  const state = (name: string) => get.resources().find((r) => r.urn.endsWith(`::${name}`));
  expect(state("seen")).toMatchObject({ external: true, id: ids["server"], inputs: {} });
  expect(state("seen")?.outputs).not.toHaveProperty("sshKeyIds");
  expect(state("seen")?.outputs).not.toHaveProperty("__unread");
  expect(state("seen-key")).toMatchObject({ external: true, id: ids["generated"], inputs: {} });
  expect(state("seen-key")?.outputs).not.toHaveProperty("__unread");
}, 240_000);

it("the dynamic flavour adopts the same objects with adoptId; the next up and a refresh change nothing", async () => {
  const dynamic = await startProgramFixture(join(ROOT, "test", "programs", "adopt-unread"), {
    emulator: { lifecycle: { mode: "manual" } },
  });
  try {
    const made = await keyedServer(dynamic);
    const e = dynamic.engineWith({ config: { "adopt:ids": JSON.stringify(made) } });
    const up = await e.up();
    expectExit(up, EXIT_OK);
    expect(changesByName(up)).toEqual({ generated: "create", web: "create" });
    expect(up.outputs["serverKeys"]).toEqual([Number(made["generated"])]);
    expect((await dynamic.client.servers.list()).map((s) => String(s.id))).toEqual([
      made["server"],
    ]);
    const again = await e.up({ refresh: true });
    expectExit(again, EXIT_OK);
    expect(again.changes, report(again)).toEqual([]);
  } finally {
    await dynamic.close();
  }
}, 240_000);
