import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

const dirs: string[] = [];
const running: TestEmulator[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cloudinfra-core-persist-"));
  dirs.push(dir);
  return dir;
}

async function start(dataDir?: string, apiKey?: string): Promise<TestEmulator> {
  const emulator = await startTestEmulator({
    extraRoutes: coreTestRoutes,
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  running.push(emulator);
  return emulator;
}

afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("--data-dir", () => {
  it("keeps state, keys and the CA across a restart", async () => {
    const dir = tempDir();
    const first = await start(dir);
    const note = await first.call("POST", "/v1/_test/notes", { json: { text: "kept" } });
    expect(note.status).toBe(201);
    const other = await first.admin.createAccount({ name: "Second" });
    const otherNote = await first.call("POST", "/v1/_test/notes", {
      key: other.api_key,
      json: { text: "theirs" },
    });
    expect(otherNote.status).toBe(201);
    await first.close();

    const second = await start(dir);
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.caCert).toBe(first.caCert);
    const mine = await second.call("GET", "/v1/_test/notes");
    expect(mine.body).toEqual([{ id: (note.body as { id: number }).id, text: "kept" }]);
    const theirs = await second.call("GET", "/v1/_test/notes", { key: other.api_key });
    expect(theirs.body).toEqual([{ id: (otherNote.body as { id: number }).id, text: "theirs" }]);
    // Ids keep counting after a restart instead of reusing old ones.
    const next = await second.call("POST", "/v1/_test/notes", { json: { text: "new" } });
    expect((next.body as { id: number }).id).toBeGreaterThan((otherNote.body as { id: number }).id);
  });

  it("writes TLS files, the key file and the database with private modes, and no key in the database", async () => {
    const dir = tempDir();
    const emulator = await start(dir);
    await emulator.call("POST", "/v1/_test/notes", { json: { text: "x" } });
    for (const name of [
      "ca.pem",
      "ca-key.pem",
      "server.pem",
      "server-key.pem",
      "state.db",
      "bootstrap-key",
    ]) {
      expect(existsSync(join(dir, name)), name).toBe(true);
    }
    for (const name of ["ca-key.pem", "bootstrap-key", "state.db", "state.db-wal"]) {
      expect(statSync(join(dir, name)).mode & 0o077, name).toBe(0);
    }
    await emulator.close();
    const bytes = Buffer.concat(
      readdirSync(dir)
        .filter((name) => name.startsWith("state.db"))
        .map((name) => readFileSync(join(dir, name))),
    );
    expect(bytes.includes(emulator.apiKey)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
  });

  it("lets a fixed bootstrap key replace the stored one on restart", async () => {
    const dir = tempDir();
    const first = await start(dir);
    await first.close();
    const fixed = "cik_fixed-bootstrap-key-for-this-test";
    const second = await start(dir, fixed);
    expect((await second.call("GET", "/v1/_test/whoami", { key: fixed })).status).toBe(200);
    expect((await second.call("GET", "/v1/_test/whoami", { key: first.apiKey })).status).toBe(401);
  });

  it("refuses a second emulator on a data dir in use", async () => {
    const dir = tempDir();
    await start(dir);
    await expect(start(dir)).rejects.toThrow(/in use/);
  });

  it("leaves a state.json it finds alone (no released version wrote one)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "state.json"), "{ torn");
    const emulator = await start(dir);
    await emulator.close();
    expect(readFileSync(join(dir, "state.json"), "utf8")).toBe("{ torn");
  });

  it("refuses to start over a file that is not its database, and leaves it alone", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "state.db"),
      "this is not an SQLite database, but it is someone's data",
    );
    await expect(start(dir)).rejects.toThrow(/state\.db is not a readable emulator database/);
    expect(readFileSync(join(dir, "state.db"), "utf8")).toMatch(/^this is not/);
  });
});

describe("--memory", () => {
  it("keeps nothing between runs and leaves no CA file behind", async () => {
    const first = await start();
    await first.call("POST", "/v1/_test/notes", { json: { text: "gone" } });
    const caFile = first.caCertFile;
    expect(readFileSync(caFile, "utf8")).toBe(first.caCert);
    await first.close();
    expect(existsSync(caFile)).toBe(false);

    const second = await start();
    expect((await second.call("GET", "/v1/_test/notes")).body).toEqual([]);
    expect(second.apiKey).not.toBe(first.apiKey);
  });
});
