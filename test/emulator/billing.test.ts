import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { CloudInfraClient } from "../../src/api/client";
import { ConflictError, ForbiddenError, NotFoundError } from "../../src/api/errors";
import type { Invoice } from "../../src/api/schemas/billing";
import { defineRoute, type ExtraRoute } from "../../src/emulator";
import { fieldError } from "../../src/emulator/http/http-errors";
import { recordServerOrder } from "../../src/emulator/service/orders";
import { percentOf, priceToCents, toCents } from "../../src/lib/money";
import type { TestEmulator } from "../support/emulator";
import { type ApiFixture, startApi } from "../support/route-fixtures";

/**
 * Stands in for a server creation: bills one server of a plan through the same function the
 * server route calls, so orders and invoices can be tested without provisioning servers.
 */
const orderRoute: ExtraRoute = {
  ...defineRoute({
    method: "POST",
    path: "/v1/_test/orders",
    body: z.strictObject({ plan_id: z.int() }),
    handler(ctx) {
      const plan = ctx.catalogue.plans.find((p) => p.id === ctx.body.plan_id);
      if (plan === undefined) throw fieldError("plan_id", "no such plan");
      const orderId = recordServerOrder(ctx.account, {
        userId: ctx.user.id,
        plan,
        serverId: ctx.nextId("server"),
        now: ctx.now(),
        nextId: ctx.nextId,
        countries: ctx.catalogue.countries,
      });
      return ctx.json({ order_id: orderId }, 201);
    },
  }),
  permission: "servers:write",
};

let api: ApiFixture;
let emulator: TestEmulator;

/** A fresh account (its own invoices and cards) with the owner's client and key. */
async function newAccount(
  country = "DE",
): Promise<{ client: CloudInfraClient; key: string; id: number }> {
  const created = await emulator.admin.createAccount({ country });
  return { client: api.clientWith(created.api_key), key: created.api_key, id: created.account_id };
}

async function order(key: string, planId: number): Promise<number> {
  const answer = await emulator.call("POST", "/v1/_test/orders", {
    key,
    json: { plan_id: planId },
  });
  expect(answer.status).toBe(201);
  return (answer.body as { order_id: number }).order_id;
}

function setClock(iso: string): void {
  emulator.admin.setClock({ offset_ms: Date.parse(iso) - Date.now() });
}

function cents(invoice: Invoice | undefined) {
  if (invoice === undefined) throw new Error("no invoice");
  return {
    subtotal: toCents(invoice.subtotal_amount),
    discount: toCents(invoice.discount),
    vat: toCents(invoice.vat_amount),
    total: toCents(invoice.total_amount),
    outstanding: toCents(invoice.outstanding_amount),
    items: invoice.invoice_items.map((item) => toCents(item.amount)),
  };
}

beforeAll(async () => {
  api = await startApi({ extraRoutes: [orderRoute] });
  ({ emulator } = api);
});
afterEach(() => {
  emulator.admin.setClock({ offset_ms: 0 });
});
afterAll(async () => {
  await api?.close();
});

describe("orders", () => {
  it("lists the account's orders and reads one; another account's order is 404", async () => {
    const { client, key } = await newAccount();
    await expect(client.billing.listOrders()).resolves.toEqual([]);
    const orderId = await order(key, 2);
    const me = await client.account.introspect();
    const listed = await client.billing.listOrders();
    expect(listed).toHaveLength(1);
    const fetched = await client.billing.getOrder(orderId);
    expect(fetched).toEqual(listed[0]);
    expect(fetched).toMatchObject({
      id: orderId,
      user_id: me.user.id,
      account_id: me.account.id,
      order_plans: [{ order_id: orderId, plan_id: 2, quantity: 1 }],
    });
    expect(fetched.unique_id).toMatch(/^[0-9a-f-]{36}$/);

    const other = await newAccount();
    await expect(other.client.billing.getOrder(orderId)).rejects.toBeInstanceOf(NotFoundError);
    await expect(other.client.billing.listOrders()).resolves.toEqual([]);
    const bad = await emulator.call("GET", "/v1/orders/abc", { key });
    expect(bad.status).toBe(400);
  });
});

describe("servers are billed", () => {
  it("orders and invoices each server a POST /v1/servers creates", async () => {
    setClock("2026-05-01T00:00:00.000Z");
    const { client } = await newAccount("NL");
    const plan = (await client.catalogue.listPlans())[0];
    const image = (await client.catalogue.listImages())[0];
    if (plan === undefined || image === undefined) throw new Error("empty catalogue");
    const servers = await client.servers.create({
      plan_id: plan.id,
      image: image.name,
      user_defined_name: "web",
      quantity: 2,
    });
    expect(servers).toHaveLength(2);
    const orders = await client.billing.listOrders();
    expect(servers.map((s) => s.order_id).sort()).toEqual(orders.map((o) => o.id).sort());
    expect(orders.every((o) => o.order_plans[0]?.plan_id === plan.id)).toBe(true);
    const [invoice] = await client.billing.listInvoices();
    const amounts = cents(invoice);
    expect(amounts.items).toEqual([priceToCents(plan.price), priceToCents(plan.price)]);
    expect(amounts.vat).toBe(percentOf(amounts.subtotal, 21));
    expect(amounts.total).toBe(amounts.subtotal + amounts.vat);
  });
});

describe("invoices", () => {
  it("bills a full month from the 1st at the plan price, with Finnish VAT that adds up", async () => {
    setClock("2026-03-01T00:00:00.000Z");
    const { client, key } = await newAccount("FI");
    const plans = await client.catalogue.listPlans();
    const [first, second] = plans;
    if (first === undefined || second === undefined) throw new Error("catalogue has no plans");
    await order(key, first.id);
    await order(key, second.id);
    await order(key, second.id);

    const invoices = await client.billing.listInvoices();
    expect(invoices).toHaveLength(1);
    const invoice = invoices[0] as Invoice;
    expect(invoice).toMatchObject({
      billing_month: "2026-03-01T00:00:00Z",
      from_date: "2026-03-01T00:00:00Z",
      to_date: "2026-03-31T23:59:59Z",
      due_date: "2026-04-15T00:00:00Z",
      paid: false,
      paid_at: null,
    });
    expect(invoice.invoice_number).toMatch(/^INV-2026-\d{5}$/);
    const amounts = cents(invoice);
    expect(amounts.items).toEqual([
      priceToCents(first.price),
      priceToCents(second.price),
      priceToCents(second.price),
    ]);
    expect(invoice.invoice_items.map((i) => i.plan_id)).toEqual([first.id, second.id, second.id]);
    expect(amounts.subtotal).toBe(amounts.items.reduce((a, b) => a + b, 0));
    // Finland's 25.5 % is applied once to the whole invoice, rounded half-up to the cent.
    expect(amounts.vat).toBe(percentOf(amounts.subtotal - amounts.discount, "25.5"));
    expect(amounts.total).toBe(amounts.subtotal - amounts.discount + amounts.vat);
    expect(amounts.outstanding).toBe(amounts.total);
  });

  it("prorates a server ordered mid-month to the rest of the month", async () => {
    setClock("2026-04-16T00:00:00.000Z");
    const { client, key } = await newAccount("DE");
    const plan = (await client.catalogue.listPlans())[0];
    if (plan === undefined) throw new Error("catalogue has no plans");
    await order(key, plan.id);
    const [invoice] = await client.billing.listInvoices();
    // 15 of April's 30 days remain: half the monthly price, rounded half-up.
    const monthly = priceToCents(plan.price);
    expect(cents(invoice).items).toEqual([Math.floor((monthly + 1) / 2)]);
    expect(invoice?.invoice_items[0]?.billing_for).toContain("2026-04-16");
    expect(cents(invoice).vat).toBe(percentOf(cents(invoice).subtotal, 19));
  });

  it("pays the outstanding amount with the default card, once", async () => {
    const { client, key } = await newAccount("AT");
    await order(key, 3);
    const [invoice] = await client.billing.listInvoices();
    if (invoice === undefined) throw new Error("no invoice");
    const payment = await client.billing.payInvoice(invoice.id);
    expect(payment).toMatchObject({ paid: true, outstanding: "0.00" });
    expect(payment.message).toContain("4242");
    const [paid] = await client.billing.listInvoices();
    expect(paid).toMatchObject({
      id: invoice.id,
      paid: true,
      outstanding_amount: "0.00",
      payment_ref_id: payment.payment_ref,
      total_amount: invoice.total_amount,
    });
    expect(paid?.paid_at).toEqual(expect.any(String));
    await expect(client.billing.payInvoice(invoice.id)).rejects.toBeInstanceOf(ConflictError);

    // A paid invoice is final: the next order of the month opens a new one.
    await order(key, 3);
    const after = await client.billing.listInvoices();
    expect(after).toHaveLength(2);
    expect(after[0]).toEqual(paid);
    expect(after[1]).toMatchObject({ paid: false, billing_month: invoice.billing_month });
    expect(after[1]?.invoice_number).not.toBe(invoice.invoice_number);
  });

  it("declines with an expired default card: 200, paid false, nothing changes", async () => {
    const { client, key } = await newAccount();
    await order(key, 1);
    const [invoice] = await client.billing.listInvoices();
    if (invoice === undefined) throw new Error("no invoice");
    setClock("2031-02-01T00:00:00.000Z");
    const payment = await client.billing.payInvoice(invoice.id);
    expect(payment).toMatchObject({ paid: false, outstanding: invoice.outstanding_amount });
    expect(payment.message).toMatch(/expired/);
    expect((await client.billing.listInvoices())[0]).toEqual(invoice);
  });

  it("answers 404 for an unknown or another account's invoice, 403 without billing:write", async () => {
    const { client, key } = await newAccount();
    await order(key, 1);
    const [invoice] = await client.billing.listInvoices();
    const other = await newAccount();
    await expect(other.client.billing.payInvoice(invoice?.id ?? 0)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(client.billing.payInvoice(999_999)).rejects.toBeInstanceOf(NotFoundError);
    const readOnly = (await client.iam.listRoles()).find((r) => r.name === "Read only");
    const reader = await client.iam.createUser({
      name: "r",
      type: "api",
      role_id: readOnly?.id ?? 0,
    });
    const readerClient = api.clientWith(reader.api_key);
    await expect(readerClient.billing.listInvoices()).resolves.toHaveLength(1);
    await expect(readerClient.billing.payInvoice(invoice?.id ?? 0)).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect((await emulator.call("GET", "/v1/invoices", { key: null })).status).toBe(401);
  });
});

describe("payment methods", () => {
  it("starts with two cards, exactly one of them the default", async () => {
    const { client } = await newAccount();
    const cards = await client.billing.listPaymentMethods();
    expect(cards).toHaveLength(2);
    expect(cards.filter((c) => c.default)).toHaveLength(1);
    expect(cards.every((c) => /^\d{4}$/.test(c.last4) && /^\d{2}\/\d{2}$/.test(c.exp))).toBe(true);
  });

  it("switches the default so that exactly one card is the default", async () => {
    const { client } = await newAccount();
    const before = await client.billing.listPaymentMethods();
    const other = before.find((c) => !c.default);
    if (other === undefined) throw new Error("no second card");
    await expect(client.billing.setDefaultPaymentMethod(other.id)).resolves.toMatchObject({
      success: true,
    });
    const after = await client.billing.listPaymentMethods();
    expect(after.filter((c) => c.default).map((c) => c.id)).toEqual([other.id]);
    // Setting it again changes nothing.
    await client.billing.setDefaultPaymentMethod(other.id);
    expect(await client.billing.listPaymentMethods()).toEqual(after);
  });

  it("refuses an expired card as the default (409)", async () => {
    const { client } = await newAccount();
    const other = (await client.billing.listPaymentMethods()).find((c) => !c.default);
    setClock("2029-07-01T00:00:00.000Z"); // the second card's 06/29 has just run out
    await expect(client.billing.setDefaultPaymentMethod(other?.id ?? "")).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it("keeps the default card while others exist; without any card a payment is 409", async () => {
    const { client, key } = await newAccount();
    await order(key, 1);
    const cards = await client.billing.listPaymentMethods();
    const main = cards.find((c) => c.default);
    const spare = cards.find((c) => !c.default);
    if (main === undefined || spare === undefined) throw new Error("cards missing");
    await expect(client.billing.deletePaymentMethod(main.id)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.billing.deletePaymentMethod(spare.id)).resolves.toMatchObject({
      success: true,
    });
    await expect(client.billing.deletePaymentMethod(spare.id)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(client.billing.deletePaymentMethod(main.id)).resolves.toMatchObject({
      success: true,
    });
    await expect(client.billing.listPaymentMethods()).resolves.toEqual([]);
    const [invoice] = await client.billing.listInvoices();
    const error = await client.billing.payInvoice(invoice?.id ?? 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toMatch(/default payment method/);
  });

  it("answers 404 for another account's card", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const card = (await theirs.client.billing.listPaymentMethods())[1];
    await expect(
      mine.client.billing.setDefaultPaymentMethod(card?.id ?? ""),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(mine.client.billing.deletePaymentMethod(card?.id ?? "")).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(await theirs.client.billing.listPaymentMethods()).toHaveLength(2);
  });
});
