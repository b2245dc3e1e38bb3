/**
 * The SQLite store: what a restart reads back, and the test-time guard that memory and database
 * agree after every write.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FormData } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineRoute, type EmulatorOptions } from "../../src/emulator";
import { findOr404 } from "../../src/emulator/http/http-errors";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const dirs: string[] = [];
const running: TestEmulator[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cloudinfra-core-store-"));
  dirs.push(dir);
  return dir;
}

async function start(options: EmulatorOptions): Promise<TestEmulator> {
  const emulator = await startTestEmulator(options);
  running.push(emulator);
  return emulator;
}

afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** Every list an account can read, as the API answers it. */
async function everything(emulator: TestEmulator) {
  const lists = [
    "/v1/servers",
    "/v1/tags",
    "/v1/keys",
    "/v1/firewall/groups?limit=100",
    "/v1/tickets",
    "/v1/account/roles",
    "/v1/orders",
    "/v1/invoices",
    "/v1/wallet/cards",
  ];
  const answers: Record<string, unknown> = {};
  for (const path of lists) answers[path] = (await emulator.call("GET", path)).body;
  answers["introspect"] = (await emulator.call("POST", "/v1/introspect")).body;
  return answers;
}

describe("a data dir's database", () => {
  it("gives back every kind of record after a restart, and keeps counting ids", async () => {
    const dir = tempDir();
    const first = await start({ dataDir: dir, lifecycle: { mode: "manual" } });
    const [server] = (
      await first.call("POST", "/v1/servers", {
        json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web" },
      })
    ).body as { id: number }[];
    await first.admin.advance({});
    await first.call("POST", "/v1/tags", {
      json: { name: "prod", color: "#112233", server_ids: [server?.id] },
    });
    await first.call("POST", "/v1/firewall/groups", {
      json: { name: "ssh", rules: [{ action: "ACCEPT", proto: "tcp", dport: "22" }] },
    });
    await first.call("POST", "/v1/keys", { json: { name: "generated", type: "generate" } });
    const role = (
      await first.call("POST", "/v1/account/roles", {
        json: { name: "viewer", permission_ids: [1] },
      })
    ).body as { id: number };
    await first.call("POST", "/v1/account/users", {
      json: { name: "ci", type: "api", role_id: role.id },
    });
    const form = new FormData();
    form.append("subject", "Disk full");
    form.append("content", "Please look");
    form.append("attachments", new Blob(["log"]), "log.txt");
    const ticket = (await first.call("POST", "/v1/tickets", { body: form })).body as {
      id: number;
    };
    const reply = new FormData();
    reply.append("content", "more");
    await first.call("POST", `/v1/tickets/${ticket.id}/replies`, { body: reply });
    await first.call("POST", `/v1/servers/${server?.id}/management`, { json: { action: "stop" } });
    await first.call("POST", "/v1/users/account", { json: { tax_id: "DE123456789" } });
    const before = await everything(first);
    await first.close();

    const second = await start({ dataDir: dir, lifecycle: { mode: "manual" } });
    expect(await everything(second)).toEqual(before);
    // The stop begun before the restart is still pending, and completes.
    await second.admin.advance({});
    expect((await second.call("GET", `/v1/servers/${server?.id}`)).body).toMatchObject({
      status: "stopped",
    });
    const next = (await second.call("POST", "/v1/tags", { json: { name: "n", color: "#000000" } }))
      .body as { id: number };
    expect(next.id).toBeGreaterThan((before["/v1/tags"] as { id: number }[])[0]?.id ?? 0);
  });

  it("is emptied by a reset: a restart after it finds only the bootstrap administrator", async () => {
    const dir = tempDir();
    const first = await start({ dataDir: dir });
    await first.admin.createAccount({ name: "Gone" });
    await first.call("POST", "/v1/tags", { json: { name: "gone", color: "#000000" } });
    await first.admin.reset();
    await first.close();
    const second = await start({ dataDir: dir });
    expect(second.admin.accounts()).toEqual([expect.objectContaining({ id: 1 })]);
    expect((await second.call("GET", "/v1/tags")).body).toEqual([]);
  });
});

describe("checkStore (test emulators)", () => {
  it("fails a request whose handler changed a record without recording it", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const sloppy = {
      ...defineRoute({
        method: "POST",
        path: "/v1/_test/tags/:id/rename-unrecorded",
        handler(ctx) {
          const tag = findOr404(ctx.account.tags, ctx.intParam("id"), "Tag");
          tag.name = "renamed in memory only";
          return ctx.generic("renamed");
        },
      }),
      permission: "tags:write" as const,
    };
    const emulator = await start({ extraRoutes: [sloppy] });
    const tag = (await emulator.call("POST", "/v1/tags", { json: { name: "a", color: "#000000" } }))
      .body as { id: number };
    const answer = await emulator.call("POST", `/v1/_test/tags/${tag.id}/rename-unrecorded`);
    expect(answer.status).toBe(500);
    expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toMatch(
      /store check: the database differs from memory at state\.accounts\[0\]\.tags\[0\]\.name/,
    );
  });
});

describe("node:sqlite", () => {
  it("is loaded without Node 22's ExperimentalWarning, and lets every other warning through", () => {
    // The emulator's sqlite() as built, in a Node that warns as Node 22 does when node:sqlite
    // first loads (Node 24, which runs the tests, no longer does); then two unrelated warnings.
    const program = `
      const Module = require("node:module");
      const load = Module._load;
      Module._load = function (request, ...rest) {
        if (request === "node:sqlite") {
          process.emitWarning(
            "SQLite is an experimental feature and might change at any time",
            "ExperimentalWarning",
          );
        }
        return load.call(this, request, ...rest);
      };
      const { sqlite } = require(${JSON.stringify(join(__dirname, "..", "..", "dist", "emulator", "store", "sqlite.js"))});
      new (sqlite().DatabaseSync)(":memory:").close();
      process.emitWarning("something else is experimental", "ExperimentalWarning");
      process.emitWarning("SQLite is an experimental feature", "DeprecationWarning");
    `;
    const run = spawnSync(process.execPath, ["-e", program], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(run.status).toBe(0);
    const stderr = run.stderr;
    const warnings = stderr
      .split("\n")
      .filter((line) => /^\(node:\d+\) /.test(line))
      .map((line) => line.replace(/^\(node:\d+\) /, ""));
    expect(warnings).toEqual([
      "ExperimentalWarning: something else is experimental",
      "DeprecationWarning: SQLite is an experimental feature",
    ]);
  });
});
