/**
 * What the package keeps outside the project (the create journal, the emulator registry) on a
 * machine shared with another user who plants folders first (issue 26, findings 1 and 2). The
 * other user's part runs as a second user (nobody, 65534) through `setpriv` where the tests run
 * as root; elsewhere those tests are skipped, saying why. The rule itself is lib/private-dir.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { startEmulator } from "../../src/emulator";
import { privateDir, UnsafeFolderError, writePrivateFile } from "../../src/lib/private-dir";
import { onHost, resetHost } from "../../src/provider";
import { requestDigest } from "../../src/resources/journal";
import { ServerInputsSchema, toApi } from "../../src/resources/server/model";
import { operations as serverOperations } from "../../src/resources/server/provider";
import { deadPid } from "../support/dead-process";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const server = onHost(serverOperations);

const root = join(__dirname, "..", "..");
const OTHER = 65534;
const canBeAnotherUser =
  process.getuid?.() === 0 &&
  spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "true"]).status === 0;
if (!canBeAnotherUser) {
  console.warn(
    "foreign-folders.test.ts: skipping the second-user cases: they need root and setpriv to act as user 65534",
  );
}

/** Runs `script` in sh as user 65534 with umask 0 (everything it makes is writable by all). */
function asOtherUser(script: string): void {
  const run = spawnSync(
    "setpriv",
    ["--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", `umask 0; ${script}`],
    { encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`as user ${OTHER}: ${script}: ${run.stderr}`);
}

/** Every path under `dir` with its owner: what a test compares before and after. */
function ownersUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const st = lstatSync(path);
    out.push(`${path} ${st.uid}`);
    if (st.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return out;
}

/** Folders the tests made, removed at the end. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new temp dir (removed at the end). */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A temp dir made as /tmp is (1777), standing for the machine's shared temp dir. */
function sharedTemp(): string {
  const dir = tempDir("shared-tmp-");
  chmodSync(dir, 0o1777);
  return dir;
}

const uid = process.getuid?.() ?? 0;
let savedTmp: string | undefined;
function useTemp(dir: string): void {
  savedTmp ??= process.env["TMPDIR"] ?? "";
  process.env["TMPDIR"] = dir;
}
afterEach(() => {
  if (savedTmp === undefined) return;
  if (savedTmp === "") delete process.env["TMPDIR"];
  else process.env["TMPDIR"] = savedTmp;
  savedTmp = undefined;
});

describe("privateDir, the rule", () => {
  it("makes missing folders 0700, top-down, and files 0600", () => {
    const base = tempDir("private-");
    const dir = privateDir(join(base, "a", "b"), { what: "test" });
    expect(lstatSync(join(base, "a")).mode & 0o777).toBe(0o700);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    writePrivateFile(join(dir, "state.json"), "{}");
    expect(lstatSync(join(dir, "state.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["state.json"]);
  });

  it("refuses a folder others can write, a symbolic link, and makes nothing inside them", () => {
    const base = tempDir("private-");
    const open = join(base, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => privateDir(join(open, "journal"), { what: "the thing's folder" })).toThrow(
      `the thing's folder: ${open} is writable by group or others without the sticky bit (mode 0777), so it is not used (nothing is read from or written to it); remove it`,
    );
    expect(readdirSync(open)).toEqual([]);
    const link = join(base, "link");
    symlinkSync(tempDir("target-"), link);
    let err: unknown;
    try {
      privateDir(link, { what: "x", remedy: "do y" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnsafeFolderError);
    expect((err as UnsafeFolderError).reason).toMatch(/^is a symbolic link \(to .*target-/);
  });

  it("refuses a folder below one others can write without the sticky bit (they could swap it)", () => {
    const base = tempDir("private-");
    chmodSync(base, 0o777);
    const mine = join(base, "mine");
    mkdirSync(mine, { mode: 0o700 });
    expect(() => privateDir(mine, { what: "x", remedy: "do y" })).toThrow(
      `x: ${base} is writable by group or others without the sticky bit (mode 0777), so it is not used (nothing is read from or written to it); do y`,
    );
    chmodSync(base, 0o1777);
    expect(privateDir(mine, { what: "x" })).toBe(mine);
  });
});

describe.skipIf(!canBeAnotherUser)("the create journal in a folder another user made", () => {
  let emulator: TestEmulator;
  let api: CloudInfraClient;
  beforeAll(async () => {
    emulator = await startTestEmulator({
      lifecycle: { mode: "auto", durations: { provisioning: 20 } },
    });
    api = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey: emulator.apiKey,
      caCert: emulator.caCert,
    });
  });
  afterAll(async () => {
    await api?.close();
    await resetHost();
    await emulator?.close();
  });

  const args = { name: "web-1", planId: 1, image: "ubuntu-24.04" };

  it("is refused, so a planted entry never makes a create take someone else's server", async () => {
    // Someone else's server, which a create of web-1 would "recover" from the planted entry.
    const [theirs] = await api.servers.create(toApi(ServerInputsSchema.parse(args)));
    const shared = sharedTemp();
    useTemp(shared);
    await newSessionFor(emulator);
    const scope = createHash("sha256")
      .update(`${process.cwd()}\n${emulator.endpoint}\n${emulator.apiKey}`)
      .digest("hex")
      .slice(0, 24);
    const folder = join(shared, `pulumi-cloudinfra-${uid}`);
    const entry = {
      name: "planted",
      digest: requestDigest("Server", toApi(ServerInputsSchema.parse(args))),
      pid: deadPid(),
      process: "planted",
      at: Date.now(),
      before: [],
      id: theirs?.id,
    };
    asOtherUser(
      `mkdir -p ${folder}/journal/${scope}/closed && echo '${JSON.stringify(entry)}' > ${folder}/journal/${scope}/planted.json`,
    );
    const planted = ownersUnder(folder);
    const checked = await server.check({}, { ...args, __provider: "shim" });
    const before = (await api.servers.list()).map((s) => s.id);

    await expect(server.create({ ...checked.inputs, __provider: "shim" })).rejects.toThrow(
      `cloudinfra: creating Server "web-1" failed: the create journal's folder: ${folder} is owned by user ${OTHER}, not you (user ${uid}) nor root, so it is not used (nothing is read from or written to it); remove it if you trust nothing in it (if another user owns it, an administrator can), or set CLOUDINFRA_JOURNAL_DIR to a folder of your own (mkdir -m 700 ~/.cloudinfra-journal && export CLOUDINFRA_JOURNAL_DIR=~/.cloudinfra-journal)`,
    );
    expect((await api.servers.list()).map((s) => s.id)).toEqual(before);
    expect(ownersUnder(folder)).toEqual(planted);
  });

  it("never uses the old shared folder name, which any user could make first", async () => {
    const shared = sharedTemp();
    useTemp(shared);
    await newSessionFor(emulator);
    asOtherUser(`mkdir -m 777 ${shared}/pulumi-cloudinfra`);
    const checked = await server.check({}, { ...args, name: "web-2", __provider: "shim" });
    const made = await server.create({ ...checked.inputs, __provider: "shim" });
    expect((await api.servers.get(Number(made.id))).user_defined_name).toBe("web-2");
    expect(readdirSync(join(shared, "pulumi-cloudinfra"))).toEqual([]);
    const mine = join(shared, `pulumi-cloudinfra-${uid}`);
    expect(lstatSync(mine).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(mine, "journal")).mode & 0o777).toBe(0o700);
  });
});

describe.skipIf(!canBeAnotherUser)("`emulator env` with a registry another user made", () => {
  /** `cloudinfra-emulator env` run from an empty folder with `tmp` as the temp dir. */
  function env(tmp: string) {
    const run = spawnSync(process.execPath, [join(root, "scripts", "emulator-env.mjs")], {
      cwd: tempDir("elsewhere-"),
      env: { ...process.env, TMPDIR: tmp },
      encoding: "utf8",
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  /** An emulator.json of the other user's, naming a running process (pid 1). */
  function attackerInfo(): string {
    const evil = tempDir("evil-");
    chmodSync(evil, 0o777);
    const info = join(evil, "emulator.json");
    const content = {
      endpoint: "https://203.0.113.9:8443",
      caCertFile: join(evil, "ca.pem"),
      apiKey: "attacker-key",
      pid: 1,
      dataDir: evil,
    };
    asOtherUser(`echo '${JSON.stringify(content)}' > ${info}`);
    return info;
  }

  it("refuses it: prints nothing to eval and exits 1, naming the folder", () => {
    const shared = sharedTemp();
    const info = attackerInfo();
    const registry = join(shared, `pulumi-cloudinfra-${uid}`);
    asOtherUser(
      `mkdir -p ${registry}/emulators && echo '{"pid":1,"info":"${info}"}' > ${registry}/emulators/1.json`,
    );
    const planted = ownersUnder(registry);
    expect(env(shared)).toEqual({
      code: 1,
      stdout: "",
      stderr: `emulator env: the registry of running emulators: ${registry} is owned by user ${OTHER}, not you (user ${uid}) nor root, so it is not used (nothing is read from or written to it); remove it (if another user owns it, an administrator can), or set TMPDIR to a folder of your own (mkdir -m 700 ~/.tmp && export TMPDIR=~/.tmp)\n`,
    });
    expect(ownersUnder(registry)).toEqual(planted);
  });

  it("refuses a symbolic link planted where the user's folder goes", () => {
    const shared = sharedTemp();
    const info = attackerInfo();
    const theirs = join(shared, "theirs");
    asOtherUser(
      `mkdir -p ${theirs}/emulators && echo '{"pid":1,"info":"${info}"}' > ${theirs}/emulators/1.json && ln -s ${theirs} ${shared}/pulumi-cloudinfra-${uid}`,
    );
    const found = env(shared);
    expect(found.code).toBe(1);
    expect(found.stdout).toBe("");
    expect(found.stderr).toContain(
      `${shared}/pulumi-cloudinfra-${uid} is a symbolic link owned by user ${OTHER}, not you (user ${uid}) nor root, so it is not used`,
    );
  });

  it("the emulator CLI starts anyway, saying it is not registered; an in-memory one refuses", async () => {
    const shared = sharedTemp();
    asOtherUser(`mkdir -p ${shared}/pulumi-cloudinfra-${uid}/emulators`);
    const planted = ownersUnder(join(shared, `pulumi-cloudinfra-${uid}`));
    const dataDir = tempDir("data-");
    const child = spawn(
      process.execPath,
      [join(root, "dist", "emulator", "cli.js"), "--data-dir", dataDir, "--port", "0"],
      { env: { ...process.env, TMPDIR: shared }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("export CLOUDINFRA_CA_CERT=")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    expect(err).toContain(
      `cloudinfra-emulator: not registered for \`emulator env\`: the registry of running emulators: ${shared}/pulumi-cloudinfra-${uid} is owned by user ${OTHER}`,
    );
    expect(ownersUnder(join(shared, `pulumi-cloudinfra-${uid}`))).toEqual(planted);

    useTemp(shared);
    await expect(startEmulator({ port: 0 })).rejects.toThrow(
      `the in-memory emulator's folder: ${shared}/pulumi-cloudinfra-${uid} is owned by user ${OTHER}`,
    );
    expect(ownersUnder(join(shared, `pulumi-cloudinfra-${uid}`))).toEqual(planted);
  });

  it("finds nothing (and says so) when only the old shared name was planted", () => {
    const shared = sharedTemp();
    const info = attackerInfo();
    asOtherUser(
      `mkdir -p ${shared}/cloudinfra-emulators-${uid} && echo '{"pid":1,"info":"${info}"}' > ${shared}/cloudinfra-emulators-${uid}/1.json`,
    );
    const found = env(shared);
    expect(found).toMatchObject({ code: 1, stdout: "" });
    expect(found.stderr).toMatch(/^emulator env: no running emulator found/);
    expect(existsSync(join(shared, `pulumi-cloudinfra-${uid}`, "emulators"))).toBe(true);
    expect(readFileSync(info, "utf8")).toContain("attacker-key");
  });
});
