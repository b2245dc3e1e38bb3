import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { RequestValidationError } from "../../src/api/errors";
import { HttpClient, type RetryPolicy } from "../../src/api/http";
import * as fx from "./client-fixtures";

const ORIGIN = "https://api.test";
const API_KEY = "test-key-123";

/** Every endpoint of the spec, as `METHOD path-pattern` (spec: Endpoints). */
const SPEC_ENDPOINTS = [
  "GET /v1/servers",
  "POST /v1/servers",
  "GET /v1/servers/:id",
  "POST /v1/servers/:id",
  "POST /v1/servers/:id/management",
  "GET /v1/servers/:id/statistics",
  "GET /v1/tags",
  "POST /v1/tags",
  "POST /v1/tags/:id",
  "DELETE /v1/tags/:id",
  "GET /v1/account/permissions",
  "POST /v1/account/users",
  "DELETE /v1/account/users/:id",
  "POST /v1/account/users/:id/update",
  "GET /v1/account/roles",
  "POST /v1/account/roles",
  "POST /v1/account/roles/:id/update",
  "DELETE /v1/account/roles/:id",
  "GET /v1/orders",
  "GET /v1/orders/:id",
  "GET /v1/invoices",
  "POST /v1/invoices/:id/payments",
  "GET /v1/wallet/cards",
  "POST /v1/wallet/cards/:id/default",
  "DELETE /v1/wallet/cards/:id",
  "GET /v1/firewall/groups",
  "POST /v1/firewall/groups",
  "GET /v1/firewall/groups/:id",
  "POST /v1/firewall/groups/:id",
  "DELETE /v1/firewall/groups/:id",
  "POST /v1/firewall/groups/:id/servers/:sid",
  "DELETE /v1/firewall/groups/:id/servers/:sid",
  "POST /v1/firewall/groups/servers/:id",
  "GET /v1/tickets",
  "POST /v1/tickets",
  "GET /v1/tickets/:id",
  "POST /v1/tickets/:id/status",
  "POST /v1/tickets/:id/replies",
  "GET /v1/keys",
  "POST /v1/keys",
  "GET /v1/keys/:id",
  "DELETE /v1/keys/:id",
  "GET /v1/blog/posts",
  "GET /v1/blog/posts/:name",
  "POST /v1/introspect",
  "POST /v1/users/me",
  "POST /v1/users/account",
  "GET /v1/plans",
  "GET /v1/countries",
  "GET /v1/images",
];

interface ExpectedMultipart {
  fields: Record<string, string>;
  files: { filename: string; type: string; text: string }[];
}

interface Row {
  /** The spec's endpoint, `METHOD pattern`. */
  endpoint: string;
  call: (client: CloudInfraClient) => Promise<unknown>;
  /** Path and query the request must carry. */
  url: string;
  /** JSON body the request must carry; absent means no body at all. */
  json?: unknown;
  multipart?: ExpectedMultipart;
  reply: unknown;
  retry: RetryPolicy;
  /** Success status the service answers (201 for creates). */
  status?: number;
}

const I: RetryPolicy = "idempotent";
const N: RetryPolicy = "non-idempotent";

const rule = { action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" } as const;
const groupBody = { name: "ssh", description: "SSH from the office", rules: [rule] };
const logFile = {
  filename: "log.txt",
  data: new TextEncoder().encode("line 1\nline 2\n"),
  contentType: "text/plain",
};

const rows: Row[] = [
  // Servers
  {
    endpoint: "GET /v1/servers",
    call: (c) => c.servers.list(),
    url: "/v1/servers",
    reply: [fx.server],
    retry: I,
  },
  {
    endpoint: "POST /v1/servers",
    call: (c) =>
      c.servers.create({
        plan_id: 3,
        image: "debian-12",
        user_defined_name: "web-1",
        ssh_key_ids: [91],
      }),
    url: "/v1/servers",
    json: {
      plan_id: 3,
      image: "debian-12",
      user_defined_name: "web-1",
      ssh_key_ids: [91],
      quantity: 1,
    },
    reply: [{ ...fx.server, status: "provisioning" }],
    status: 201,
    retry: N,
  },
  {
    endpoint: "GET /v1/servers/:id",
    call: (c) => c.servers.get(11),
    url: "/v1/servers/11",
    reply: fx.server,
    retry: I,
  },
  {
    endpoint: "POST /v1/servers/:id",
    call: (c) => c.servers.update("11", { user_defined_name: "web-2" }),
    url: "/v1/servers/11",
    json: { user_defined_name: "web-2" },
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "POST /v1/servers/:id/management",
    call: (c) => c.servers.manage(11, { action: "reboot" }),
    url: "/v1/servers/11/management",
    json: { action: "reboot" },
    reply: fx.managementResponse,
    retry: N,
  },
  {
    endpoint: "GET /v1/servers/:id/statistics",
    call: (c) => c.servers.getMetrics(11),
    url: "/v1/servers/11/statistics",
    reply: fx.metrics,
    retry: I,
  },
  // Tags
  {
    endpoint: "GET /v1/tags",
    call: (c) => c.tags.list(),
    url: "/v1/tags",
    reply: [fx.tag],
    retry: I,
  },
  {
    endpoint: "POST /v1/tags",
    call: (c) =>
      c.tags.create({ name: "prod", color: "#FF8800", data: "env:prod", server_ids: [11] }),
    url: "/v1/tags",
    json: { name: "prod", color: "#FF8800", data: "env:prod", server_ids: [11] },
    reply: fx.tag,
    status: 201,
    retry: N,
  },
  {
    endpoint: "POST /v1/tags/:id",
    call: (c) => c.tags.update(21, { name: "prod", color: "#00FF00" }),
    url: "/v1/tags/21",
    json: { name: "prod", color: "#00FF00" },
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/tags/:id",
    call: (c) => c.tags.delete(21),
    url: "/v1/tags/21",
    reply: fx.genericOk,
    retry: I,
  },
  // IAM
  {
    endpoint: "GET /v1/account/permissions",
    call: (c) => c.iam.listPermissions(),
    url: "/v1/account/permissions",
    reply: [fx.permission],
    retry: I,
  },
  {
    endpoint: "POST /v1/account/users",
    call: (c) => c.iam.createUser({ name: "ci", type: "api", role_id: 41 }),
    url: "/v1/account/users",
    json: { name: "ci", type: "api", role_id: 41 },
    reply: fx.createUserResponse,
    status: 201,
    retry: N,
  },
  {
    endpoint: "DELETE /v1/account/users/:id",
    call: (c) => c.iam.deleteUser(51),
    url: "/v1/account/users/51",
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "POST /v1/account/users/:id/update",
    call: (c) => c.iam.updateUserRole(51, { role_id: 42 }),
    url: "/v1/account/users/51/update",
    json: { role_id: 42 },
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "GET /v1/account/roles",
    call: (c) => c.iam.listRoles(),
    url: "/v1/account/roles",
    reply: [fx.role],
    retry: I,
  },
  {
    endpoint: "POST /v1/account/roles",
    call: (c) =>
      c.iam.createRole({ name: "operators", description: "Runs servers", permission_ids: [1] }),
    url: "/v1/account/roles",
    json: { name: "operators", description: "Runs servers", permission_ids: [1] },
    reply: fx.role,
    status: 201,
    retry: N,
  },
  {
    endpoint: "POST /v1/account/roles/:id/update",
    call: (c) => c.iam.updateRole(41, { name: "operators", permission_ids: [1, 2] }),
    url: "/v1/account/roles/41/update",
    json: { name: "operators", permission_ids: [1, 2] },
    reply: fx.role,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/account/roles/:id",
    call: (c) => c.iam.deleteRole(41),
    url: "/v1/account/roles/41",
    reply: fx.genericOk,
    retry: I,
  },
  // Billing
  {
    endpoint: "GET /v1/orders",
    call: (c) => c.billing.listOrders(),
    url: "/v1/orders",
    reply: [fx.order],
    retry: I,
  },
  {
    endpoint: "GET /v1/orders/:id",
    call: (c) => c.billing.getOrder(7),
    url: "/v1/orders/7",
    reply: fx.order,
    retry: I,
  },
  {
    endpoint: "GET /v1/invoices",
    call: (c) => c.billing.listInvoices(),
    url: "/v1/invoices",
    reply: [fx.invoice],
    retry: I,
  },
  {
    endpoint: "POST /v1/invoices/:id/payments",
    call: (c) => c.billing.payInvoice(61),
    url: "/v1/invoices/61/payments",
    reply: fx.invoicePayment,
    retry: N,
  },
  {
    endpoint: "GET /v1/wallet/cards",
    call: (c) => c.billing.listPaymentMethods(),
    url: "/v1/wallet/cards",
    reply: [fx.paymentMethod],
    retry: I,
  },
  {
    endpoint: "POST /v1/wallet/cards/:id/default",
    call: (c) => c.billing.setDefaultPaymentMethod("pm_1"),
    url: "/v1/wallet/cards/pm_1/default",
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/wallet/cards/:id",
    call: (c) => c.billing.deletePaymentMethod("pm_1"),
    url: "/v1/wallet/cards/pm_1",
    reply: fx.genericOk,
    retry: I,
  },
  // Firewall
  {
    endpoint: "GET /v1/firewall/groups",
    call: (c) => c.firewall.listPage({ page: 2, limit: 5 }),
    url: "/v1/firewall/groups?page=2&limit=5",
    reply: fx.securityGroupsPage(2, 5, 6, [31]),
    retry: I,
  },
  {
    endpoint: "POST /v1/firewall/groups",
    call: (c) => c.firewall.create(groupBody),
    url: "/v1/firewall/groups",
    json: groupBody,
    reply: fx.genericOk,
    status: 201,
    retry: N,
  },
  {
    endpoint: "GET /v1/firewall/groups/:id",
    call: (c) => c.firewall.get(31),
    url: "/v1/firewall/groups/31",
    reply: fx.securityGroup,
    retry: I,
  },
  {
    endpoint: "POST /v1/firewall/groups/:id",
    call: (c) => c.firewall.update(31, groupBody),
    url: "/v1/firewall/groups/31",
    json: groupBody,
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/firewall/groups/:id",
    call: (c) => c.firewall.delete(31),
    url: "/v1/firewall/groups/31",
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "POST /v1/firewall/groups/:id/servers/:sid",
    call: (c) => c.firewall.attachServer(31, 11),
    url: "/v1/firewall/groups/31/servers/11",
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/firewall/groups/:id/servers/:sid",
    call: (c) => c.firewall.detachServer(31, 11),
    url: "/v1/firewall/groups/31/servers/11",
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "POST /v1/firewall/groups/servers/:id",
    call: (c) => c.firewall.setServerFirewall(11, { firewall_enabled: true }),
    url: "/v1/firewall/groups/servers/11",
    json: { firewall_enabled: true },
    reply: fx.genericOk,
    retry: I,
  },
  // Support
  {
    endpoint: "GET /v1/tickets",
    call: (c) => c.support.list(),
    url: "/v1/tickets",
    reply: [fx.ticket],
    retry: I,
  },
  {
    endpoint: "POST /v1/tickets",
    call: (c) =>
      c.support.create({ subject: "Server unreachable", content: "web-1 does not answer" }, [
        logFile,
      ]),
    url: "/v1/tickets",
    multipart: {
      fields: { subject: "Server unreachable", content: "web-1 does not answer" },
      files: [{ filename: "log.txt", type: "text/plain", text: "line 1\nline 2\n" }],
    },
    reply: fx.ticket,
    status: 201,
    retry: N,
  },
  {
    endpoint: "GET /v1/tickets/:id",
    call: (c) => c.support.get(71),
    url: "/v1/tickets/71",
    reply: fx.ticket,
    retry: I,
  },
  {
    endpoint: "POST /v1/tickets/:id/status",
    call: (c) => c.support.updateStatus(71, { status: "closed" }),
    url: "/v1/tickets/71/status",
    json: { status: "closed" },
    reply: fx.genericOk,
    retry: I,
  },
  {
    endpoint: "POST /v1/tickets/:id/replies",
    call: (c) => c.support.reply(71, { content: "Any news?" }),
    url: "/v1/tickets/71/replies",
    multipart: { fields: { content: "Any news?" }, files: [] },
    reply: fx.reply,
    status: 201,
    retry: N,
  },
  // SSH keys
  {
    endpoint: "GET /v1/keys",
    call: (c) => c.keys.list(),
    url: "/v1/keys",
    reply: [fx.key],
    retry: I,
  },
  {
    endpoint: "POST /v1/keys",
    call: (c) => c.keys.create({ name: "ci", type: "generate" }),
    url: "/v1/keys",
    json: { name: "ci", type: "generate" },
    reply: fx.keyEnvelope,
    status: 201,
    retry: N,
  },
  {
    endpoint: "GET /v1/keys/:id",
    call: (c) => c.keys.get(91),
    url: "/v1/keys/91",
    reply: fx.key,
    retry: I,
  },
  {
    endpoint: "DELETE /v1/keys/:id",
    call: (c) => c.keys.delete(91),
    url: "/v1/keys/91",
    reply: fx.genericOk,
    retry: I,
  },
  // Blog
  {
    endpoint: "GET /v1/blog/posts",
    call: (c) => c.blog.listPage(),
    url: "/v1/blog/posts",
    reply: fx.blogPostsPage(1, 20, 1, [1]),
    retry: I,
  },
  {
    endpoint: "GET /v1/blog/posts/:name",
    call: (c) => c.blog.get("post-1"),
    url: "/v1/blog/posts/post-1",
    reply: fx.blogPost(1),
    retry: I,
  },
  // User and account
  {
    endpoint: "POST /v1/introspect",
    call: (c) => c.account.introspect(),
    url: "/v1/introspect",
    reply: fx.introspect,
    retry: I,
  },
  {
    endpoint: "POST /v1/users/me",
    call: (c) => c.account.updateProfile({ last_name: "Byron", email: "ada@example.org" }),
    url: "/v1/users/me",
    json: { last_name: "Byron", email: "ada@example.org" },
    reply: fx.user,
    retry: I,
  },
  {
    endpoint: "POST /v1/users/account",
    call: (c) => c.account.updateAccount({ city: "Paris", country: "FR", auto_pay: true }),
    url: "/v1/users/account",
    json: { city: "Paris", country: "FR", auto_pay: true },
    reply: fx.account,
    retry: I,
  },
  // Catalogues
  {
    endpoint: "GET /v1/plans",
    call: (c) => c.catalogue.listPlans(),
    url: "/v1/plans",
    reply: [fx.plan],
    retry: I,
  },
  {
    endpoint: "GET /v1/countries",
    call: (c) => c.catalogue.listCountries(),
    url: "/v1/countries",
    reply: [fx.country],
    retry: I,
  },
  {
    endpoint: "GET /v1/images",
    call: (c) => c.catalogue.listImages(),
    url: "/v1/images",
    reply: [fx.image],
    retry: I,
  },
];

interface Seen {
  method: string;
  /** Path and query. */
  url: string;
  headers: Headers;
  body: Uint8Array;
}

/** Answers one request with `reply` and records what arrived. */
function interceptOnce(
  method: string,
  reply: unknown,
  status = 200,
): { seen: () => Seen | undefined; scope: nock.Scope } {
  let seen: Seen | undefined;
  const scope = nock(ORIGIN)
    .intercept(() => true, method)
    // nock 15 hands the reply function the request as a fetch Request.
    .reply(async (req: Request) => {
      const url = new URL(req.url);
      seen = {
        method: req.method,
        url: url.pathname + url.search,
        headers: req.headers,
        body: new Uint8Array(await req.arrayBuffer()),
      };
      return [status, reply, { "x-request-id": "req-test" }];
    });
  return { seen: () => seen, scope };
}

function newClient(): CloudInfraClient {
  return new CloudInfraClient({ endpoint: ORIGIN, apiKey: API_KEY, maxRetries: 0 });
}

let client: CloudInfraClient;

beforeAll(() => {
  nock.disableNetConnect();
  client = newClient();
});

afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
});

afterAll(async () => {
  await client.close();
  nock.enableNetConnect();
});

describe("every endpoint of the spec", () => {
  it("has exactly one row per endpoint: 50 distinct method + path pairs, those of the spec", () => {
    const covered = rows.map((r) => r.endpoint);
    expect(new Set(covered).size).toBe(covered.length);
    expect(new Set(SPEC_ENDPOINTS).size).toBe(50);
    expect([...covered].sort()).toEqual([...SPEC_ENDPOINTS].sort());
  });

  it.each(rows.map((r) => [r.endpoint, r] as const))("%s", async (endpoint, row) => {
    const request = vi.spyOn(HttpClient.prototype, "request");
    const { seen } = interceptOnce(endpoint.split(" ")[0] ?? "", row.reply, row.status ?? 200);

    const result = await row.call(client);

    const sent = seen();
    if (sent === undefined) throw new Error("no request reached the service");
    expect(sent.method).toBe(endpoint.split(" ")[0]);
    expect(sent.url).toBe(row.url);
    expect(sent.headers.get("authorization")).toBe(`ApiKey ${API_KEY}`);
    if (row.json !== undefined) {
      expect(sent.headers.get("content-type")).toBe("application/json");
      expect(JSON.parse(new TextDecoder().decode(sent.body))).toEqual(row.json);
    } else if (row.multipart !== undefined) {
      const type = String(sent.headers.get("content-type"));
      expect(type).toMatch(/^multipart\/form-data; boundary=/);
      const form = await new Response(sent.body, { headers: { "content-type": type } }).formData();
      for (const [name, value] of Object.entries(row.multipart.fields)) {
        expect(form.get(name)).toBe(value);
      }
      const files = form.getAll("attachments").map((f) => f as File);
      expect(
        await Promise.all(
          files.map(async (f) => ({ filename: f.name, type: f.type, text: await f.text() })),
        ),
      ).toEqual(row.multipart.files);
    } else {
      expect(sent.headers.get("content-type")).toBeNull();
      expect(sent.body.byteLength).toBe(0);
    }
    expect(result).toEqual(row.reply);
    expect(request.mock.calls[0]?.[0].retry).toBe(row.retry);
  });
});

describe("requests are checked before anything is sent", () => {
  it("refuses an invalid body, naming each field, with no request made", async () => {
    const { scope } = interceptOnce("POST", fx.server);
    const attempt = client.servers.create({
      plan_id: 0,
      image: "debian-12",
      user_defined_name: "",
    });
    await expect(attempt).rejects.toThrow(RequestValidationError);
    await expect(attempt).rejects.toThrow(
      /plan_id: expected a positive integer; user_defined_name: must not be empty or blank$/,
    );
    expect(scope.isDone()).toBe(false);
  });

  it("refuses a typo in a field name that the type system would also flag", async () => {
    const { scope } = interceptOnce("POST", fx.genericOk);
    // @ts-expect-error: `colour` is not a field; users without TypeScript get the runtime error.
    const attempt = client.tags.update(21, { name: "prod", colour: "#FF8800" });
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).fieldErrors).toEqual([
      { field: "color", message: "is required" },
      { field: "colour", message: "unknown field" },
    ]);
    expect(scope.isDone()).toBe(false);
  });

  it("refuses paging values out of range", async () => {
    const { scope } = interceptOnce("GET", fx.securityGroupsPage(1, 20, 0, []));
    await expect(client.firewall.listPage({ limit: 500 })).rejects.toThrow(
      /limit: expected an integer from 1 to 100/,
    );
    expect(scope.isDone()).toBe(false);
  });

  it("percent-encodes path parameters and refuses an empty id", async () => {
    const { seen } = interceptOnce("GET", fx.blogPost(1));
    await client.blog.get("a/b c?d");
    expect(seen()?.url).toBe("/v1/blog/posts/a%2Fb%20c%3Fd");

    const { scope } = interceptOnce("GET", fx.server);
    await expect(client.servers.get("")).rejects.toThrow(RequestValidationError);
    expect(scope.isDone()).toBe(false);
  });
});
