/**
 * A value the user marked secret stays secret through whole runs: never on the program's or the
 * provider host's stderr, even with the client's debug log on; in the state only encrypted; a
 * secret stack output.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import { SECRET_SIG, SIG } from "../support/local-engine/values.ts";
import {
  expectExit,
  expectNoSecretInState,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const SECRET = "vault-token-3f9a1c0e7b";
let fx: ProgramFixture;

beforeAll(async () => {
  fx = await startProgramFixture(join(ROOT, "test", "programs", "secret-tag"), {
    env: { CLOUDINFRA_LOG: "debug" },
  });
});
afterAll(async () => fx?.close());

it("keeps a secret tag's data out of every log and out of the state, through up, refresh and destroy", async () => {
  const engine = fx.engineWith({
    secretConfig: { "cloudinfra:apiKey": fx.emulator.apiKey, "secret-tag:data": SECRET },
  });
  const runs = [await engine.up(), await engine.refresh(), await engine.up({ refresh: true })];
  for (const run of runs) expectExit(run, EXIT_OK);
  // The tag really holds the value, and the debug log really logged the traffic.
  expect((await fx.client.tags.list())[0]?.data).toBe(SECRET);
  expect(runs[0]?.hostStderr).toContain("POST /v1/tags");
  expect(runs[0]?.outputs["data"]).toEqual({ [SIG]: SECRET_SIG, value: SECRET });
  const tag = engine.resources().find((r) => r.urn.endsWith("::vault"));
  expect(tag?.inputs?.["data"]).toEqual({ [SIG]: SECRET_SIG, value: SECRET });
  expect(tag?.outputs?.["data"]).toEqual({ [SIG]: SECRET_SIG, value: SECRET });
  expectNoSecretInState(engine, [SECRET, fx.emulator.apiKey]);
  const destroy = await engine.destroy();
  expectExit(destroy, EXIT_OK);
  for (const run of [...runs, destroy]) {
    // Debug diagnostics are left out: they are the SDK's own `--debug` log (it logs registration
    // answers whole), which the CLI shows only when asked to.
    const shown = run.diagnostics.filter((d) => d.severity !== "debug");
    for (const text of [
      run.hostStderr,
      run.programStderr,
      run.programStdout,
      JSON.stringify(shown),
    ]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(fx.emulator.apiKey);
    }
  }
});
