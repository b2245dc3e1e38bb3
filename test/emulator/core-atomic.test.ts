/**
 * A request is all or nothing: a handler that fails after it changed things leaves memory and
 * the database as they were. Every route that changes state is called once with a failure
 * injected after its handler returned (the `afterHandler` hook), and once without: the first
 * must change nothing anyone can see, the second proves the same request does change things.
 * The routes come from the emulator's own route table, so a new one without an entry here fails.
 */
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defineRoute, type ExtraRoute } from "../../src/emulator";
import { routeKey } from "../../src/emulator/http/router";
import { type CallResult, startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;
/** The route (`POST /v1/tags`) whose next request fails after its handler. */
let failing: string | undefined;

beforeAll(async () => {
  vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  emulator = await startTestEmulator({
    lifecycle: { mode: "manual" },
    afterHandler(route) {
      if (routeKey(route.method, route.path) === failing) {
        failing = undefined;
        throw new Error("injected failure after the handler");
      }
    },
  });
});
afterAll(async () => {
  await emulator?.close();
  vi.restoreAllMocks();
});

/** A request, ready to send with the key of the account it was prepared in. */
interface Prepared {
  path: string;
  key: string;
  json?: unknown;
  body?: FormData;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

async function ok(key: string, method: string, path: string, json?: unknown): Promise<unknown> {
  const answer = await emulator.call(method, path, json === undefined ? { key } : { key, json });
  if (answer.status >= 300) {
    throw new Error(`${method} ${path} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/** A fresh account (so fixtures never meet each other's objects) and its owner's key. */
async function account(): Promise<string> {
  return (await emulator.admin.createAccount({ name: unique("atomic") })).api_key;
}

async function server(key: string, running = true): Promise<number> {
  const [made] = (await ok(key, "POST", "/v1/servers", {
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: unique("web"),
  })) as { id: number }[];
  if (made === undefined) throw new Error("no server made");
  if (running) await emulator.admin.advance({ server_id: made.id });
  return made.id;
}

async function tag(key: string): Promise<number> {
  return (
    (await ok(key, "POST", "/v1/tags", { name: unique("tag"), color: "#112233" })) as {
      id: number;
    }
  ).id;
}

const rules = [{ action: "ACCEPT", proto: "tcp", dport: "22" }];

async function group(key: string): Promise<number> {
  const name = unique("group");
  await ok(key, "POST", "/v1/firewall/groups", { name, rules });
  const page = (await ok(key, "GET", "/v1/firewall/groups?limit=100")) as {
    data: { id: number; name: string }[];
  };
  const found = page.data.find((g) => g.name === name);
  if (found === undefined) throw new Error(`group ${name} not found`);
  return found.id;
}

async function role(key: string): Promise<number> {
  const made = (await ok(key, "POST", "/v1/account/roles", {
    name: unique("role"),
    permission_ids: [1],
  })) as { id: number };
  return made.id;
}

async function user(key: string): Promise<number> {
  const made = (await ok(key, "POST", "/v1/account/users", {
    name: unique("user"),
    type: "api",
    role_id: await role(key),
  })) as { user_id: number };
  return made.user_id;
}

async function key(owner: string): Promise<number> {
  const made = (await ok(owner, "POST", "/v1/keys", { name: unique("key"), type: "generate" })) as {
    key: { id: number };
  };
  return made.key.id;
}

function ticketForm(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("attachments", new Blob([new TextEncoder().encode("log")]), "kern.log");
  return form;
}

async function ticket(key: string): Promise<number> {
  const answer = await emulator.call("POST", "/v1/tickets", {
    key,
    body: ticketForm({ subject: unique("ticket"), content: "down" }),
  });
  return (answer.body as { id: number }).id;
}

async function cards(key: string): Promise<{ id: string; default: boolean }[]> {
  return (await ok(key, "GET", "/v1/wallet/cards")) as { id: string; default: boolean }[];
}

async function nonDefaultCard(key: string): Promise<string> {
  const card = (await cards(key)).find((c) => !c.default);
  if (card === undefined) throw new Error("no card besides the default one");
  return card.id;
}

async function unpaidInvoice(key: string): Promise<number> {
  await server(key);
  const invoices = (await ok(key, "GET", "/v1/invoices")) as { id: number; paid: boolean }[];
  const open = invoices.find((i) => !i.paid);
  if (open === undefined) throw new Error("no unpaid invoice");
  return open.id;
}

const bootstrap = () => emulator.apiKey;

/** A valid request for every route that changes state, in an account of its own. */
const FIXTURES: Record<string, () => Promise<Prepared>> = {
  "POST /v1/servers": async () => ({
    key: await account(),
    path: "/v1/servers",
    json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web", quantity: 2 },
  }),
  "POST /v1/servers/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/servers/${await server(k)}`, json: { user_defined_name: "db" } };
  },
  "POST /v1/servers/:id/management": async () => {
    const k = await account();
    return { key: k, path: `/v1/servers/${await server(k)}/management`, json: { action: "stop" } };
  },
  "POST /v1/tags": async () => {
    const k = await account();
    await server(k);
    return { key: k, path: "/v1/tags", json: { name: "prod", color: "#00ff00", server_ids: [] } };
  },
  "POST /v1/tags/:id": async () => {
    const k = await account();
    const id = await server(k);
    return {
      key: k,
      path: `/v1/tags/${await tag(k)}`,
      json: { name: "renamed", color: "#445566", server_ids: [id] },
    };
  },
  "DELETE /v1/tags/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/tags/${await tag(k)}` };
  },
  "POST /v1/account/users": async () => {
    const k = await account();
    return {
      key: k,
      path: "/v1/account/users",
      json: { name: "ci", type: "api", role_id: await role(k) },
    };
  },
  "DELETE /v1/account/users/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/account/users/${await user(k)}` };
  },
  "POST /v1/account/users/:id/update": async () => {
    const k = await account();
    const id = await user(k);
    return { key: k, path: `/v1/account/users/${id}/update`, json: { role_id: await role(k) } };
  },
  "POST /v1/account/roles": async () => ({
    key: await account(),
    path: "/v1/account/roles",
    json: { name: "deployers", permission_ids: [1, 2] },
  }),
  "POST /v1/account/roles/:id/update": async () => {
    const k = await account();
    return {
      key: k,
      path: `/v1/account/roles/${await role(k)}/update`,
      json: { name: "renamed", description: "more", permission_ids: [2, 3] },
    };
  },
  "DELETE /v1/account/roles/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/account/roles/${await role(k)}` };
  },
  "POST /v1/invoices/:id/payments": async () => {
    const k = await account();
    return { key: k, path: `/v1/invoices/${await unpaidInvoice(k)}/payments` };
  },
  "POST /v1/wallet/cards/:id/default": async () => {
    const k = await account();
    return { key: k, path: `/v1/wallet/cards/${await nonDefaultCard(k)}/default` };
  },
  "DELETE /v1/wallet/cards/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/wallet/cards/${await nonDefaultCard(k)}` };
  },
  "POST /v1/firewall/groups": async () => ({
    key: await account(),
    path: "/v1/firewall/groups",
    json: { name: "ssh", rules },
  }),
  "POST /v1/firewall/groups/:id": async () => {
    const k = await account();
    return {
      key: k,
      path: `/v1/firewall/groups/${await group(k)}`,
      json: { name: "web", rules: [{ action: "DROP", proto: "udp" }] },
    };
  },
  "DELETE /v1/firewall/groups/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/firewall/groups/${await group(k)}` };
  },
  "POST /v1/firewall/groups/:id/servers/:sid": async () => {
    const k = await account();
    return { key: k, path: `/v1/firewall/groups/${await group(k)}/servers/${await server(k)}` };
  },
  "DELETE /v1/firewall/groups/:id/servers/:sid": async () => {
    const k = await account();
    const path = `/v1/firewall/groups/${await group(k)}/servers/${await server(k)}`;
    await ok(k, "POST", path);
    return { key: k, path };
  },
  "POST /v1/firewall/groups/servers/:id": async () => {
    const k = await account();
    return {
      key: k,
      path: `/v1/firewall/groups/servers/${await server(k)}`,
      json: { firewall_enabled: true },
    };
  },
  "POST /v1/tickets": async () => ({
    key: await account(),
    path: "/v1/tickets",
    body: ticketForm({ subject: "disk full", content: "server 12" }),
  }),
  "POST /v1/tickets/:id/status": async () => {
    const k = await account();
    return { key: k, path: `/v1/tickets/${await ticket(k)}/status`, json: { status: "closed" } };
  },
  "POST /v1/tickets/:id/replies": async () => {
    const k = await account();
    return {
      key: k,
      path: `/v1/tickets/${await ticket(k)}/replies`,
      body: ticketForm({ content: "here is the log" }),
    };
  },
  "POST /v1/keys": async () => ({
    key: await account(),
    path: "/v1/keys",
    json: { name: "laptop", type: "generate" },
  }),
  "DELETE /v1/keys/:id": async () => {
    const k = await account();
    return { key: k, path: `/v1/keys/${await key(k)}` };
  },
  "POST /v1/users/me": async () => ({
    key: await account(),
    path: "/v1/users/me",
    json: { name: "Ada", password: "correct horse battery" },
  }),
  "POST /v1/users/account": async () => ({
    key: await account(),
    path: "/v1/users/account",
    json: { company: "Example GmbH", country: "FR" },
  }),
  "POST /_emulator/reset": async () => {
    await account();
    return { key: bootstrap(), path: "/_emulator/reset" };
  },
  "POST /_emulator/accounts": async () => ({
    key: bootstrap(),
    path: "/_emulator/accounts",
    json: { name: "Initech" },
  }),
  "POST /_emulator/seed": async () => ({
    key: bootstrap(),
    path: "/_emulator/seed",
    json: { servers: 3, tags: 2, keys: 2, security_groups: 2, tickets: 2, invoices: 2 },
  }),
  "POST /_emulator/lifecycle/advance": async () => {
    const k = await account();
    await server(k, false);
    return { key: bootstrap(), path: "/_emulator/lifecycle/advance", json: {} };
  },
};

/**
 * Routes that change no state (memory or database): settings of the running emulator, which a
 * restart resets anyway, and a read that happens to be a POST.
 */
const STATELESS = new Set([
  "POST /v1/introspect",
  "PUT /_emulator/faults",
  "DELETE /_emulator/faults",
  "PUT /_emulator/lifecycle",
  "POST /_emulator/lifecycle/fail-provisioning",
  "PUT /_emulator/rate-limit",
  "DELETE /_emulator/requests",
  "POST /_emulator/clock",
]);

/** Everything the emulator holds, as the admin API shows it. */
function everything(): string {
  return JSON.stringify(
    emulator.admin.accounts().map((summary) => emulator.admin.account(summary.id)),
  );
}

async function send(method: string, request: Prepared): Promise<CallResult> {
  return emulator.call(method, request.path, {
    key: request.key,
    ...(request.json === undefined ? {} : { json: request.json }),
    ...(request.body === undefined ? {} : { body: request.body }),
  });
}

describe("a request that fails after its handler changed things", () => {
  let mutating: string[] = [];
  beforeAll(async () => {
    const routes = (await emulator.call("GET", "/_emulator/info")).body as { routes: string[] };
    mutating = routes.routes.filter((route) => !route.startsWith("GET "));
  });

  it("covers every route of the route table that is not a GET", () => {
    const unclassified = mutating.filter((route) => !(route in FIXTURES) && !STATELESS.has(route));
    expect(unclassified, "add a fixture (or a reason it changes no state) for each").toEqual([]);
    expect(Object.keys(FIXTURES).length).toBeGreaterThanOrEqual(32);
  });

  it.each(Object.keys(FIXTURES))(
    "%s changes nothing when it fails, and something when not",
    async (route) => {
      const [method = "", path = ""] = route.split(" ");
      const request = await FIXTURES[route]?.();
      if (request === undefined) throw new Error(`no fixture for ${route}`);
      // Multipart bodies are streams: one per attempt.
      const again: Prepared =
        request.body === undefined
          ? request
          : {
              ...request,
              body: request.path.endsWith("/replies")
                ? ticketForm({ content: "here is the log" })
                : ticketForm({ subject: "disk full", content: "server 12" }),
            };
      const before = everything();

      failing = routeKey(method, path);
      const failed = await send(method, request);
      expect(failed.status, JSON.stringify(failed.body)).toBe(500);
      expect(failing, "the injected failure did not fire").toBeUndefined();
      expect(everything()).toBe(before);

      // The same request, not failing: it changes state (so the first one really was undone),
      // and the test emulator's store check proves the database equals memory after it.
      const done = await send(method, again);
      expect(done.status, JSON.stringify(done.body)).toBeLessThan(300);
      expect(everything()).not.toBe(before);
    },
  );
});

describe("a handler that awaits, then fails", () => {
  it("lets no other change commit its half, nor undoes that change with its own failure", async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: ExtraRoute = {
      ...defineRoute({
        method: "POST",
        path: "/v1/_test/slow-failure",
        async handler(ctx) {
          const now = ctx.now();
          ctx.account.tags.insert({
            id: ctx.nextId("tag"),
            name: "half-made",
            color: "#000000",
            data: "",
            created_by_user: ctx.user.id,
            server_ids: [],
            created_at: now,
            updated_at: now,
          });
          entered();
          await gate;
          throw new Error("failed after an await");
        },
      }),
      permission: null,
    };
    const own = await startTestEmulator({ extraRoutes: [slow] });
    try {
      const failing = own.call("POST", "/v1/_test/slow-failure");
      await inHandler;
      // Asked for while the failing handler waits: a change of its own, which must neither be
      // committed with the other's half nor undone by its failure.
      const other = own.admin.createAccount({ name: "Whole" });
      release();
      expect((await failing).status).toBe(500);
      const { account_id } = await other;
      expect(own.admin.accounts().map((a) => a.id)).toContain(account_id);
      const tags = (await own.call("GET", "/v1/tags")).body as { name: string }[];
      expect(tags.map((t) => t.name)).not.toContain("half-made");
    } finally {
      await own.close();
    }
  });
});
