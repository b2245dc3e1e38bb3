/**
 * `npm start` (scripts/start.mjs): it starts an emulator when none runs in its data dir, reuses a
 * running one, and where the Pulumi CLI cannot be run says exactly that and what to do instead.
 * The CLI itself cannot run here (its npm package downloads the binary): the run that deploys
 * is the README's by hand, and test/e2e where the CLI exists.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../support/programs";

const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-start-"));
const env = {
  ...process.env,
  CLOUDINFRA_START_DATA_DIR: dataDir,
  CLOUDINFRA_PULUMI: join(dataDir, "no-such-pulumi"),
};
const start = () =>
  spawnSync(process.execPath, [join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });

afterAll(() => {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "emulator.json"), "utf8")) as {
      pid: number;
    };
    process.kill(pid, "SIGTERM");
  } catch {
    // Nothing was started.
  }
  rmSync(dataDir, { recursive: true, force: true });
});

it("starts an emulator, then says the CLI cannot be run and how to go on", () => {
  const first = start();
  expect(first.status).toBe(1);
  expect(first.stdout).toContain(`Starting an emulator in the background (state in ${dataDir})`);
  expect(first.stdout).toContain("The Pulumi CLI could not be run");
  expect(first.stdout).toContain("install the CLI (https://www.pulumi.com/docs/install/)");
  expect(first.stdout).toContain(
    `npm run local-engine -- up --emulator ${join(dataDir, "emulator.json")}`,
  );

  const info = JSON.parse(readFileSync(join(dataDir, "emulator.json"), "utf8")) as {
    endpoint: string;
    pid: number;
  };
  const second = start();
  expect(second.status).toBe(1);
  expect(second.stdout).toContain(`Using the emulator at ${info.endpoint} (pid ${info.pid}`);
});
