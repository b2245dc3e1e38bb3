/**
 * Every example, run as a user runs it in a pipeline, through the local engine against the
 * emulator: preview creates nothing, up deploys, a second up changes nothing, the nightly drift
 * gate passes, destroy leaves nothing but the catalogue and the system roles.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { ApiError } from "../../src/api/errors";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import { secretValue } from "../support/local-engine/values.ts";
import {
  changesByName,
  expectExit,
  expectNoSecretInState,
  expectNothingLeft,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

interface Example {
  name: string;
  projectDir: string;
  /** The resources `up` creates, by name, stack and default provider left out. */
  resources: string[];
  /** Stack outputs that must be secret, and their clear values must never reach the state. */
  secretOutputs: string[];
}

const EXAMPLES: Example[] = [
  {
    name: "quick start (JavaScript, the repository root)",
    projectDir: ROOT,
    resources: ["deployer", "web"],
    secretOutputs: ["privateKey"],
  },
  {
    name: "iam-firewall (JavaScript)",
    projectDir: join(ROOT, "examples", "iam-firewall"),
    resources: ["deployers", "ci", "web", "app", "app-web"],
    secretOutputs: ["ciApiKey"],
  },
  {
    name: "web-fleet (TypeScript, as `pulumi new typescript` sets it up)",
    projectDir: join(ROOT, "examples", "web-fleet"),
    resources: ["deploy", "web", "web-1", "web-2"],
    secretOutputs: [],
  },
];

describe.concurrent.each(EXAMPLES)("$name", (example) => {
  let fx: ProgramFixture;
  beforeAll(async () => {
    fx = await startProgramFixture(example.projectDir);
  });
  afterAll(async () => fx?.close());

  it("previews, deploys, redeploys with no change, passes the drift gate and destroys", async () => {
    const preview = await fx.engine.preview();
    expectExit(preview, EXIT_OK);
    expect(Object.values(changesByName(preview))).toContain("create");
    expect(await fx.client.servers.list()).toEqual([]);
    expect(fx.engine.export()).toBeUndefined();

    const up = await fx.engine.up();
    expectExit(up, EXIT_OK);
    const created = Object.keys(changesByName(up));
    for (const name of example.resources) expect(created).toContain(name);
    expect(new Set(Object.values(changesByName(up)))).toEqual(new Set(["create"]));

    const secrets = example.secretOutputs.map((k) => {
      const value = up.outputs[k];
      expect(value, `${k} is a secret output`).toMatchObject({ value: expect.anything() });
      return String(secretValue(value ?? null));
    });
    expectNoSecretInState(fx.engine, [fx.emulator.apiKey, ...secrets]);

    const again = await fx.engine.up();
    expectExit(again, EXIT_OK);
    expect(again.changes).toEqual([]);

    const gate = await fx.engine.refresh({ previewOnly: true, expectNoChanges: true });
    expectExit(gate, EXIT_OK);

    const destroy = await fx.engine.destroy();
    expectExit(destroy, EXIT_OK);
    expect(fx.engine.resources()).toEqual([]);
    await expectNothingLeft(fx.client);
    if (example.secretOutputs.includes("ciApiKey")) {
      // The API user is gone too: its key no longer opens the API.
      const asCi = new CloudInfraClient({
        endpoint: fx.emulator.endpoint,
        apiKey: secrets[0] ?? "",
        caCert: fx.emulator.caCert,
      });
      const err = await asCi.account.introspect().catch((e: unknown) => e);
      await asCi.close();
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(401);
    }
  }, 180_000);
});
