import { formatCents } from "../../lib/money";
import { findOr404 } from "../http/http-errors";
import { defineRoute } from "../http/router";
import { deleteCard, describeCard, makeDefaultCard, payInvoice } from "../service/payments";
import type { AccountState, InvoiceRecord, OrderRecord } from "../store/state";

export function renderOrder(account: AccountState, order: OrderRecord) {
  return {
    id: order.id,
    unique_id: order.unique_id,
    user_id: order.user_id,
    account_id: account.profile.id,
    order_plans: order.order_plans.map((line) => ({
      id: line.id,
      order_id: order.id,
      plan_id: line.plan_id,
      quantity: line.quantity,
    })),
    created_at: order.created_at,
    updated_at: order.updated_at,
  };
}

export function renderInvoice(account: AccountState, invoice: InvoiceRecord) {
  return {
    id: invoice.id,
    unique_id: invoice.unique_id,
    invoice_number: invoice.invoice_number,
    account_id: account.profile.id,
    billing_month: invoice.billing_month,
    from_date: invoice.from_date,
    to_date: invoice.to_date,
    due_date: invoice.due_date,
    subtotal_amount: formatCents(invoice.subtotal_cents),
    discount: formatCents(invoice.discount_cents),
    vat_amount: formatCents(invoice.vat_cents),
    total_amount: formatCents(invoice.total_cents),
    outstanding_amount: formatCents(invoice.outstanding_cents),
    paid: invoice.paid,
    paid_at: invoice.paid_at ?? null,
    payment_ref_id: invoice.payment_ref_id ?? null,
    tax_id: invoice.tax_id,
    invoice_items: invoice.invoice_items.map((item) => ({
      plan_id: item.plan_id,
      amount: formatCents(item.amount_cents),
      billing_for: item.billing_for,
    })),
    created_at: invoice.created_at,
    updated_at: invoice.updated_at,
  };
}

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/orders",
    handler: (ctx) => ctx.json(ctx.account.orders.all().map((o) => renderOrder(ctx.account, o))),
  }),

  defineRoute({
    method: "GET",
    path: "/v1/orders/:id",
    handler(ctx) {
      const order = findOr404(ctx.account.orders, ctx.intParam("id"), "Order");
      return ctx.json(renderOrder(ctx.account, order));
    },
  }),

  defineRoute({
    method: "GET",
    path: "/v1/invoices",
    handler: (ctx) =>
      ctx.json(ctx.account.invoices.all().map((i) => renderInvoice(ctx.account, i))),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/invoices/:id/payments",
    handler(ctx) {
      const invoice = findOr404(ctx.account.invoices, ctx.intParam("id"), "Invoice");
      const payment = payInvoice(ctx.account, invoice, ctx.now());
      return ctx.json(
        payment.paid
          ? {
              paid: true,
              payment_ref: payment.ref,
              message: `Charged ${formatCents(payment.chargedCents)} to ${describeCard(payment.card)}`,
              outstanding: formatCents(0),
            }
          : {
              paid: false,
              payment_ref: null,
              message: payment.declined,
              outstanding: formatCents(invoice.outstanding_cents),
            },
      );
    },
  }),

  defineRoute({
    method: "GET",
    path: "/v1/wallet/cards",
    handler: (ctx) => ctx.json(ctx.account.cards.all().map((card) => ({ ...card }))),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/wallet/cards/:id/default",
    handler(ctx) {
      const card = findOr404(ctx.account.cards, ctx.params["id"] ?? "", "Payment method");
      return ctx.generic(
        makeDefaultCard(ctx, card)
          ? `${describeCard(card)} is now the default payment method`
          : `${describeCard(card)} is already the default`,
      );
    },
  }),

  defineRoute({
    method: "DELETE",
    path: "/v1/wallet/cards/:id",
    handler(ctx) {
      const card = findOr404(ctx.account.cards, ctx.params["id"] ?? "", "Payment method");
      deleteCard(ctx.account, card);
      return ctx.generic(`${describeCard(card)} deleted`);
    },
  }),
];
