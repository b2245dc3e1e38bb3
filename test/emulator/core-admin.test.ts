import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator({ extraRoutes: coreTestRoutes });
});
afterAll(async () => {
  await emulator?.close();
});

describe("/_emulator/ access", () => {
  it("answers 401 without a key and 403 for any key but the bootstrap administrator's", async () => {
    expect((await emulator.call("GET", "/_emulator/info", { key: null })).status).toBe(401);
    const other = await emulator.admin.createAccount();
    const foreign = await emulator.call("GET", "/_emulator/info", { key: other.api_key });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: "forbidden" });
    // Even an administrator of the bootstrap account is not the bootstrap administrator.
    const colleague = await emulator.call("POST", "/v1/_test/users", {
      json: { role: "Administrator" },
    });
    const key = (colleague.body as { api_key: string }).api_key;
    expect((await emulator.call("GET", "/_emulator/info", { key })).status).toBe(403);
    expect((await emulator.call("GET", "/_emulator/info")).status).toBe(200);
  });

  it("answers 404 for an unknown admin route, and names the methods a known path accepts", async () => {
    const answer = await emulator.call("GET", "/_emulator/nope");
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: "not_found" });
    const wrongMethod = await emulator.call("DELETE", "/_emulator/clock");
    expect(wrongMethod.status).toBe(404);
    expect((wrongMethod.body as { message: string }).message).toBe(
      "No admin route for DELETE /_emulator/clock (it accepts GET, POST)",
    );
  });
});

describe("one admin implementation", () => {
  it("serves /_emulator/ through the router: routes listed, requests counted by route pattern", async () => {
    const info = (await emulator.call("GET", "/_emulator/info")).body as { routes: string[] };
    expect(info.routes).toEqual(
      expect.arrayContaining(["GET /_emulator/accounts/:id", "PUT /_emulator/faults"]),
    );
    await emulator.call("GET", "/_emulator/accounts/1");
    const counted = emulator.admin
      .counters()
      .find((c) => c.method === "GET" && c.route === "/_emulator/accounts/:id");
    expect(counted?.counts["200"]).toBeGreaterThanOrEqual(1);
  });

  it("validates in-process requests as the HTTP API does, naming the field", async () => {
    const bad = { seed: 1, rules: [{ status_500: 0.7, reset: 0.5 }] };
    const answer = await emulator.call("PUT", "/_emulator/faults", { json: bad });
    expect(answer.body).toMatchObject({ errors: [expect.objectContaining({ field: "rules[0]" })] });
    expect(() => emulator.admin.setFaults(bad)).toThrow(/rules\[0\]: the rates/);
    await expect(emulator.admin.createAccount({ country: "Germany" })).rejects.toThrow(/country/);
  });

  it("answers the same views in-process and over HTTP", async () => {
    const set = emulator.admin.setRateLimit({ burst: 500 });
    expect((await emulator.call("GET", "/_emulator/rate-limit")).body).toEqual(set);
    const lifecycle = await emulator.call("PUT", "/_emulator/lifecycle", {
      json: { mode: "manual" },
    });
    expect(lifecycle.body).toEqual(emulator.admin.lifecycle());
    emulator.admin.setLifecycle({ mode: "auto" });
  });
});

describe("accounts, seed and reset", () => {
  it("creates an account with its own administrator key, fixed when asked", async () => {
    const key = "cik_account-key-chosen-by-the-test";
    const created = await emulator.call("POST", "/_emulator/accounts", {
      json: { name: "Acme", api_key: key },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      account_id: expect.any(Number),
      user_id: expect.any(Number),
      api_key: key,
    });
    const whoami = await emulator.call("GET", "/v1/_test/whoami", { key });
    expect(whoami.body).toMatchObject({
      account_id: (created.body as { account_id: number }).account_id,
    });
    const list = await emulator.call("GET", "/_emulator/accounts");
    expect(list.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "Acme", users: 1 })]),
    );
  });

  it("gives a new account system roles, an owner and payment cards", async () => {
    const created = await emulator.admin.createAccount({ name: "Fresh" });
    const account = (await emulator.call("GET", `/_emulator/accounts/${created.account_id}`))
      .body as {
      roles: { name: string; system_role: boolean; role_permissions: unknown[] }[];
      users: { id: number; type: string }[];
      cards: { default: boolean }[];
    };
    expect(account.roles.map((r) => [r.name, r.system_role, r.role_permissions.length])).toEqual([
      ["Administrator", true, 16],
      ["Read only", true, 8],
    ]);
    expect(account.users).toEqual([
      expect.objectContaining({ id: created.user_id, type: "human" }),
    ]);
    expect(account.cards.filter((c) => c.default)).toHaveLength(1);
  });

  it("seeds an account with running servers, tags, keys, groups, tickets and invoices", async () => {
    const created = await emulator.admin.createAccount({ name: "Seeded" });
    const seeded = await emulator.call("POST", "/_emulator/seed", {
      json: {
        account_id: created.account_id,
        servers: 3,
        tags: 1,
        keys: 1,
        security_groups: 1,
        tickets: 2,
        invoices: 1,
      },
    });
    expect(seeded.body).toMatchObject({ created: { servers: 3, tickets: 2, invoices: 1 } });
    const account = (await emulator.call("GET", `/_emulator/accounts/${created.account_id}`))
      .body as {
      servers: { status: string }[];
      keys: { public_key: string; fingerprint: string }[];
      invoices: { total_cents: number; subtotal_cents: number; vat_cents: number }[];
    };
    expect(account.servers.map((s) => s.status)).toEqual(["running", "running", "running"]);
    expect(account.keys[0]?.public_key).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5/);
    expect(account.keys[0]?.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const invoice = account.invoices[0];
    expect(invoice && invoice.subtotal_cents + invoice.vat_cents).toBe(invoice?.total_cents);
  });

  it("spreads seeded tags over the servers seeded with them, one server each in turn", async () => {
    // They all went on the first server: with 3,000 tags, GET /v1/tags (each tag showing its
    // servers, each server its tags) grew past what a string holds and answered 500.
    const created = await emulator.admin.createAccount({ name: "Spread" });
    await emulator.admin.seed({ account_id: created.account_id, servers: 3, tags: 7 });
    const tags = (await emulator.call("GET", "/v1/tags", { key: created.api_key })).body as {
      name: string;
      servers: { user_defined_name: string }[];
    }[];
    expect(tags.map((t) => [t.name, t.servers.map((s) => s.user_defined_name)])).toEqual([
      ["seed-tag-1", ["seed-server-1"]],
      ["seed-tag-2", ["seed-server-2"]],
      ["seed-tag-3", ["seed-server-3"]],
      ["seed-tag-4", ["seed-server-1"]],
      ["seed-tag-5", ["seed-server-2"]],
      ["seed-tag-6", ["seed-server-3"]],
      ["seed-tag-7", ["seed-server-1"]],
    ]);
  });

  it("seeds what the API makes: each server with its order, address and invoice item", async () => {
    const created = await emulator.admin.createAccount({ name: "Like the API", country: "DE" });
    const key = created.api_key;
    const made = await emulator.call("POST", "/v1/servers", {
      key,
      json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "by-api" },
    });
    expect(made.status).toBe(201);
    await emulator.admin.seed({ account_id: created.account_id, servers: 2, invoices: 1 });
    const servers = (await emulator.call("GET", "/v1/servers", { key })).body as {
      id: number;
      ip: string;
      order_id: number | null;
      vm_id: number | null;
      plan_id: number;
    }[];
    const [byApi, ...seeded] = servers;
    expect(seeded).toHaveLength(2);
    for (const server of seeded) {
      expect(Object.keys(server).sort()).toEqual(Object.keys(byApi ?? {}).sort());
      expect(server.order_id).not.toBeNull();
      // The same plan gets the same kind of hypervisor id, and the address scheme is the API's.
      expect(server.vm_id === null).toBe(byApi?.vm_id === null);
      expect(server.ip).toBe(
        `10.${(server.id >> 16) & 255}.${(server.id >> 8) & 255}.${server.id & 255}`,
      );
    }
    const orders = (await emulator.call("GET", "/v1/orders", { key })).body as { id: number }[];
    expect(orders.map((o) => o.id)).toEqual(servers.map((s) => s.order_id));
    const invoices = (await emulator.call("GET", "/v1/invoices", { key })).body as {
      billing_month: string;
      invoice_items: unknown[];
      subtotal_amount: string;
      vat_amount: string;
    }[];
    // The past month's sample invoice, and this month's holding the three servers' items.
    const byMonth = [...invoices].sort((x, y) => x.billing_month.localeCompare(y.billing_month));
    expect(byMonth.map((i) => i.invoice_items.length)).toEqual([1, 3]);
    expect(byMonth[0]?.billing_month).not.toBe(byMonth[1]?.billing_month);
    for (const invoice of invoices) {
      // German VAT (19 %) on the subtotal, rounded once per invoice, as the billing rules say.
      const subtotal = Math.round(Number(invoice.subtotal_amount) * 100);
      expect(Math.round(Number(invoice.vat_amount) * 100)).toBe(Math.round(subtotal * 0.19));
    }
  });

  it("resets to a fresh state: other accounts gone, the bootstrap key still valid", async () => {
    const other = await emulator.admin.createAccount();
    await emulator.call("POST", "/v1/_test/notes", { json: { text: "before reset" } });
    const reset = await emulator.call("POST", "/_emulator/reset");
    expect(reset.body).toEqual({ success: true, message: "State reset" });
    expect((await emulator.call("GET", "/v1/_test/notes")).body).toEqual([]);
    expect((await emulator.call("GET", "/v1/_test/whoami", { key: other.api_key })).status).toBe(
      401,
    );
    expect((await emulator.call("GET", "/_emulator/accounts")).body).toHaveLength(1);
  });
});

describe("request log and counters", () => {
  it("records recent requests with route patterns and counts answers per route and status", async () => {
    await emulator.call("DELETE", "/_emulator/requests");
    const note = await emulator.call("POST", "/v1/_test/notes", { json: { text: "logged" } });
    const id = (note.body as { id: number }).id;
    await emulator.call("GET", `/v1/_test/notes/${id}`);
    await emulator.call("GET", "/v1/_test/notes/999999");
    await emulator.call("GET", "/v1/_test/whoami", { key: null });

    const log = await emulator.call("GET", "/_emulator/requests?limit=4");
    const entries = (log.body as { entries: Record<string, unknown>[] }).entries;
    expect(entries.map((e) => [e["method"], e["route"], e["status"]])).toEqual([
      ["POST", "/v1/_test/notes", 201],
      ["GET", "/v1/_test/notes/:id", 200],
      ["GET", "/v1/_test/notes/:id", 404],
      ["GET", undefined, 401],
    ]);
    expect(entries[0]).toMatchObject({
      account_id: 1,
      user_id: 1,
      request_id: note.headers["x-request-id"],
    });
    expect(JSON.stringify(log.body)).not.toContain(emulator.apiKey);

    const counters = await emulator.call("GET", "/_emulator/counters");
    const routes = (
      counters.body as {
        routes: { method: string; route: string; counts: Record<string, number> }[];
      }
    ).routes;
    expect(
      routes.find((r) => r.method === "GET" && r.route === "/v1/_test/notes/:id")?.counts,
    ).toEqual({
      "200": 1,
      "404": 1,
    });
  });
});

describe("clock", () => {
  it("moves the emulator's timestamps forward without waiting", async () => {
    const before = (await emulator.call("GET", "/_emulator/clock")).body as { now: string };
    const moved = await emulator.call("POST", "/_emulator/clock", {
      json: { advance_ms: 86_400_000 },
    });
    const after = moved.body as { now: string; offset_ms: number };
    expect(after.offset_ms).toBe(86_400_000);
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(86_400_000);
    await emulator.call("POST", "/_emulator/clock", { json: { offset_ms: 0 } });
  });
});
