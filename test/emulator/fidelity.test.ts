/**
 * Fidelity to the spec's resource shapes: every answer, and every object nested in one, carries
 * every field the spec lists for its type. Relations expand two levels and are then cut with
 * empty lists, never by dropping fields.
 */
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTestRoutes, startTestEmulator, type TestEmulator } from "../support/emulator";

/** Field lists of spec/cloud-api.md, "Resources and their fields". */
const SPEC = {
  Server: [
    "id",
    "unique_id",
    "created_at",
    "updated_at",
    "ip",
    "user_id",
    "account_id",
    "vm_id",
    "firewall_enabled",
    "data",
    "plan",
    "plan_id",
    "order_id",
    "security_groups",
    "tags",
    "status",
    "status_date",
    "user_defined_name",
  ],
  Tag: ["id", "name", "color", "data", "account_id", "created_by_user", "servers"],
  SecurityGroup: [
    "id",
    "name",
    "description",
    "account_id",
    "created_by_user",
    "created_at",
    "updated_at",
    "rules",
    "servers",
  ],
  Rule: ["id", "action", "proto", "dport"],
  Invoice: [
    "id",
    "unique_id",
    "invoice_number",
    "account_id",
    "billing_month",
    "from_date",
    "to_date",
    "due_date",
    "subtotal_amount",
    "discount",
    "vat_amount",
    "total_amount",
    "outstanding_amount",
    "paid",
    "paid_at",
    "payment_ref_id",
    "tax_id",
    "invoice_items",
    "created_at",
    "updated_at",
  ],
  Order: ["id", "unique_id", "user_id", "account_id", "order_plans", "created_at", "updated_at"],
  Ticket: [
    "id",
    "case_id",
    "account_id",
    "user_id",
    "subject",
    "content",
    "status",
    "files",
    "replies",
    "created_at",
    "updated_at",
  ],
  Reply: ["id", "ticket_id", "user_id", "user", "account_id", "content", "files", "created_at"],
  User: ["id", "name", "last_name", "email", "type", "external", "sys", "created_at", "updated_at"],
  Key: [
    "id",
    "name",
    "public_key",
    "fingerprint",
    "user_id",
    "account_id",
    "created_at",
    "updated_at",
  ],
  Role: [
    "id",
    "account_id",
    "name",
    "description",
    "system_role",
    "role_permissions",
    "created_by",
    "created_by_name",
    "created_by_email",
    "created_at",
    "updated_at",
  ],
  PaymentMethod: ["id", "brand", "last4", "exp", "default"],
  Plan: ["id", "name", "description", "price", "type", "data"],
} as const;

type Kind = keyof typeof SPEC;
type Json = Record<string, unknown>;

/** Every missing spec field of `value` (a `kind`), and of the objects nested in it, by path. */
function missingFields(kind: Kind, value: unknown, path: string, depth = 0): string[] {
  const object = value as Json;
  const missing = SPEC[kind].filter((field) => !(field in object)).map((f) => `${path}.${f}`);
  const nested: [string, Kind][] = [
    ["security_groups", "SecurityGroup"],
    ["tags", "Tag"],
    ["servers", "Server"],
    ["rules", "Rule"],
    ["plan", "Plan"],
    ["replies", "Reply"],
  ];
  for (const [field, nestedKind] of nested) {
    if (!(SPEC[kind] as readonly string[]).includes(field)) continue;
    const child = object[field];
    const children = Array.isArray(child) ? child : child === null ? [] : [child];
    children.forEach((item, i) => {
      missing.push(...missingFields(nestedKind, item, `${path}.${field}[${i}]`, depth + 1));
    });
  }
  if (kind === "Reply" && object["user"] !== null) {
    missing.push(...missingFields("User", object["user"], `${path}.user`, depth + 1));
  }
  return missing;
}

let emulator: TestEmulator;
let tagId: number;
let groupId: number;
let serverIds: number[];

async function body(method: string, path: string, json?: unknown): Promise<unknown> {
  const answer = await emulator.call(method, path, json === undefined ? {} : { json });
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

beforeAll(async () => {
  emulator = await startTestEmulator({
    lifecycle: { mode: "manual" },
    // Its POST /v1/_test/servers stores a server without an order, which no route or seeder
    // makes any more: answers must show such absent fields as null.
    extraRoutes: coreTestRoutes,
  });
  const created = (await body("POST", "/v1/servers", {
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: "web",
    quantity: 2,
  })) as { id: number }[];
  serverIds = created.map((s) => s.id);
  await emulator.admin.advance({});
  await body("POST", "/v1/_test/servers");
  await body("POST", "/v1/firewall/groups", {
    name: "ssh",
    rules: [
      { action: "ACCEPT", proto: "tcp", dport: "22" },
      { action: "DROP", proto: "icmp" },
    ],
  });
  const groups = (await body("GET", "/v1/firewall/groups")) as { data: { id: number }[] };
  groupId = groups.data[0]?.id ?? 0;
  for (const id of serverIds) await body("POST", `/v1/firewall/groups/${groupId}/servers/${id}`);
  tagId = (
    (await body("POST", "/v1/tags", {
      name: "prod",
      color: "#112233",
      server_ids: serverIds,
    })) as { id: number }
  ).id;
  await body("POST", "/v1/tags", { name: "web", color: "#445566", server_ids: [serverIds[0]] });
  const form = new FormData();
  form.append("subject", "Disk full");
  form.append("content", "Please look");
  const ticket = (await emulator.call("POST", "/v1/tickets", { body: form })).body as {
    id: number;
  };
  const reply = new FormData();
  reply.append("content", "More");
  await emulator.call("POST", `/v1/tickets/${ticket.id}/replies`, { body: reply });
  await body("POST", "/v1/keys", { name: "k", type: "generate" });
});
afterAll(async () => {
  await emulator?.close();
});

describe("every field the spec lists is present", () => {
  it.each([
    ["GET /v1/servers", "/v1/servers", "Server"],
    ["GET /v1/tags", "/v1/tags", "Tag"],
    ["GET /v1/invoices", "/v1/invoices", "Invoice"],
    ["GET /v1/orders", "/v1/orders", "Order"],
    ["GET /v1/tickets", "/v1/tickets", "Ticket"],
    ["GET /v1/keys", "/v1/keys", "Key"],
    ["GET /v1/account/roles", "/v1/account/roles", "Role"],
    ["GET /v1/wallet/cards", "/v1/wallet/cards", "PaymentMethod"],
  ] as const)("%s, nested objects included", async (_, path, kind) => {
    const list = (await body("GET", path)) as unknown[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.flatMap((item, i) => missingFields(kind, item, `[${i}]`))).toEqual([]);
  });

  it("GET /v1/firewall/groups and GET /v1/firewall/groups/:id, nested objects included", async () => {
    const page = (await body("GET", "/v1/firewall/groups")) as { data: unknown[] };
    expect(page.data.flatMap((g, i) => missingFields("SecurityGroup", g, `data[${i}]`))).toEqual(
      [],
    );
    expect(
      missingFields("SecurityGroup", await body("GET", `/v1/firewall/groups/${groupId}`), ""),
    ).toEqual([]);
  });

  it("an invoice of an account without a tax id has tax_id, as the empty string", async () => {
    const [invoice] = (await body("GET", "/v1/invoices")) as Json[];
    expect(invoice).toHaveProperty("tax_id", "");
  });
});

describe("nested relations", () => {
  it("a server inside a tag carries its own tags and security groups", async () => {
    const [tag] = ((await body("GET", "/v1/tags")) as Json[]).filter((t) => t["id"] === tagId);
    const servers = tag?.["servers"] as Json[];
    expect(servers.map((s) => s["id"])).toEqual(serverIds);
    const first = servers[0] as Json;
    expect((first["tags"] as Json[]).map((t) => t["name"])).toEqual(["prod", "web"]);
    expect((first["security_groups"] as Json[]).map((g) => g["name"])).toEqual(["ssh"]);
    expect(first["plan"]).toMatchObject({ id: 1 });
  });

  it("are cut two levels down with empty lists, not dropped fields", async () => {
    const server = (await body("GET", `/v1/servers/${serverIds[0]}`)) as Json;
    const nestedTag = (server["tags"] as Json[])[0] as Json;
    const twoDown = (nestedTag["servers"] as Json[])[0] as Json;
    expect(twoDown["id"]).toBe(serverIds[0]);
    expect(twoDown["tags"]).toEqual([]);
    expect(twoDown["security_groups"]).toEqual([]);
  });

  it("a server without an order, and a rule without a port, show null rather than nothing", async () => {
    const servers = (await body("GET", "/v1/servers")) as Json[];
    const seeded = servers.find((s) => !serverIds.includes(s["id"] as number));
    expect(seeded).toMatchObject({ order_id: null });
    const group = (await body("GET", `/v1/firewall/groups/${groupId}`)) as { rules: Json[] };
    expect(group.rules[1]).toMatchObject({ proto: "icmp", dport: null });
  });
});
