/**
 * `npm start` (scripts/start.mjs) where the Pulumi CLI cannot be had, as on this machine: it
 * starts an emulator (or reuses the one running in its data dir), says in one line that it runs
 * the quick start through the local engine instead and how to get the CLI, deploys, and prints
 * the outputs, the console's address and the command that destroys it, exiting 0 with the
 * infrastructure up. The CLI path itself is test/e2e's, where the CLI exists.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../support/programs";

const dir = mkdtempSync(join(tmpdir(), "cloudinfra-start-"));
const dataDir = join(dir, "emulator");
const env = {
  ...process.env,
  CLOUDINFRA_START_DATA_DIR: dataDir,
  CLOUDINFRA_START_LOCAL_STATE: join(dir, "state.json"),
  CLOUDINFRA_PULUMI: join(dir, "no-such-pulumi"),
};
/**
 * Runs a command to its end without blocking this process (a blocked event loop would leave the
 * test's HTTPS agent holding connections the emulator has closed meanwhile).
 */
function run(
  command: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}
/** The newest modification time of a file under `dir`. */
function newestUnder(dir: string): number {
  return Math.max(
    statSync(dir).mtimeMs,
    ...readdirSync(dir, { recursive: true, encoding: "utf8" }).map(
      (f) => statSync(join(dir, f)).mtimeMs,
    ),
  );
}
const start = () => run(process.execPath, [join(ROOT, "scripts", "start.mjs")]);

interface EmulatorInfo {
  endpoint: string;
  pid: number;
  apiKey: string;
  caCertFile: string;
}
const emulatorInfo = () =>
  JSON.parse(readFileSync(join(dataDir, "emulator.json"), "utf8")) as EmulatorInfo;

afterAll(() => {
  try {
    process.kill(emulatorInfo().pid, "SIGTERM");
  } catch {
    // Nothing was started.
  }
  rmSync(dir, { recursive: true, force: true });
});

async function get(agent: Agent, url: string, headers: Record<string, string> = {}) {
  const answer = await request(url, { dispatcher: agent, headers });
  return { status: answer.statusCode, headers: answer.headers, text: await answer.body.text() };
}

async function serverNames(agent: Agent, info: EmulatorInfo): Promise<string[]> {
  const answer = await get(agent, `${info.endpoint}/v1/servers`, {
    authorization: `ApiKey ${info.apiKey}`,
  });
  const body = JSON.parse(answer.text) as { user_defined_name: string; status: string }[];
  return body.map((s) => `${s.user_defined_name} ${s.status}`);
}

it("without the CLI, deploys through the local engine, prints outputs, console and destroy command, and exits 0", async () => {
  const first = await start();
  expect(first.stderr).toBe("");
  expect(first.status).toBe(0);
  expect(first.stdout).toContain(`Starting an emulator in the background (state in ${dataDir})`);
  const notice = first.stdout.split("\n").filter((line) => line.startsWith("No Pulumi CLI here"));
  expect(notice).toHaveLength(1);
  expect(notice[0]).toContain("running the quick start through the local engine");
  expect(notice[0]).toContain("https://www.pulumi.com/docs/install/");
  // The CLI's Outputs section: keys padded to the longest.
  expect(first.stdout).toMatch(/Outputs:\n( {4}\w+ *: .+\n)+/);
  expect(first.stdout).toMatch(/^ {4}ip +: "\d+\.\d+\.\d+\.\d+"$/m);
  expect(first.stdout).toMatch(/^ {4}status +: "running"$/m);
  expect(first.stdout).toMatch(/^ {4}privateKey *: \[secret\]$/m);

  const info = emulatorInfo();
  const agent = new Agent({ connect: { ca: readFileSync(info.caCertFile, "utf8") } });
  try {
    expect(await serverNames(agent, info)).toEqual(["web-1 running"]);

    // The console's address answers: it asks for the key, and with it shows the server.
    const consoleUrl = /^Console: (https:\/\/\S+)/m.exec(first.stdout)?.[1];
    expect(consoleUrl).toBe(`${info.endpoint}/_emulator/console/`);
    const signIn = await get(agent, consoleUrl ?? "");
    expect(signIn.status).toBe(303);
    expect(signIn.headers["location"]).toBe("/_emulator/console/sign-in");
    const session = await request(`${info.endpoint}/_emulator/console/sign-in`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: info.apiKey }).toString(),
    });
    await session.body.dump();
    const cookie = String(session.headers["set-cookie"]).split(";")[0] ?? "";
    const account = await get(agent, `${info.endpoint}/_emulator/console/accounts/1`, { cookie });
    expect(account.status).toBe(200);
    expect(account.text).toMatch(/web-1<\/td>\s*<td><span class="status status-running">running/);

    // Run again, as a user does, with `npm start`: dist/ is up to date, so it is not built again
    // (issue 23, finding 13: every rerun took 15 s to rebuild), the running emulator and the
    // deployed stack are reused, and nothing is re-created.
    const stamp = join(ROOT, "dist", ".build-stamp");
    const built = statSync(stamp).mtimeMs;
    const second = await run("npm", ["start", "--silent"]);
    expect(second.status).toBe(0);
    // Another test file may touch a source meanwhile (test/programs/local-engine.test.ts does):
    // then, and only then, a build is right.
    if (statSync(stamp).mtimeMs !== built) {
      expect(newestUnder(join(ROOT, "src")), "a build with no source changed").toBeGreaterThan(
        built,
      );
    }
    expect(second.stdout).toContain(`Using the emulator at ${info.endpoint} (pid ${info.pid}`);
    expect(second.stdout).not.toMatch(/^ \+ {2}/m);
    expect(await serverNames(agent, info)).toEqual(["web-1 running"]);

    // The one command printed for tearing it down works as printed.
    const lines = second.stdout.split("\n");
    const destroy = lines[lines.findIndex((l) => l.startsWith("To destroy it")) + 1]?.trim() ?? "";
    expect(destroy).toMatch(/^npm run local-engine -- destroy --emulator /);
    const destroyed = await run("sh", ["-c", destroy]);
    expect(destroyed.status).toBe(0);
    expect(destroyed.stdout).toContain("Resources:\n    - 4 deleted\n");
    expect(await serverNames(agent, info)).toEqual([]);
  } finally {
    await agent.close();
  }
}, 420_000);
