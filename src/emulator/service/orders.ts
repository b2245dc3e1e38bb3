/**
 * Orders and the monthly invoice they feed. Route handlers that sell something (server
 * creation) call {@link recordServerOrder}; the billing routes only read and pay what is here.
 *
 * An account has at most one open (unpaid) invoice per billing month: new orders are added to
 * it, and once it is paid the next order of that month opens a fresh one, because a paid
 * invoice is a closed document that must never change afterwards.
 */
import { randomUUID } from "node:crypto";
import { priceToCents } from "../../lib/money";
import { COUNTRIES } from "../data";
import type {
  AccountState,
  CountryRecord,
  IdKind,
  InvoiceItemRecord,
  InvoiceRecord,
  PlanRecord,
  Timestamp,
} from "../store/state";
import { computeInvoice, type InvoiceTotalsCents, invoiceTotals, proratedCents } from "./billing";

/** What billing needs besides the account: the time, the id source and the countries' VAT. */
export interface BillingContext {
  now: Timestamp;
  nextId: (kind: IdKind) => number;
  /** The country catalogue (`ctx.catalogue.countries`); the built-in one when left out. */
  countries?: readonly CountryRecord[];
}

/** Days between the end of the billing month and the invoice's due date. */
export const PAYMENT_TERM_DAYS = 14;

export interface BillingPeriod {
  /** First instant of the month. */
  from: Date;
  /** Last second of the month (inclusive), as invoices print it. */
  to: Date;
  /** First instant of the next month: the exclusive end used for proration. */
  end: Date;
}

/** The calendar month (UTC) that contains `now`. */
export function billingPeriod(now: Timestamp): BillingPeriod {
  const at = new Date(now);
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { from, to: new Date(end.getTime() - 1000), end };
}

function isoSeconds(date: Date): Timestamp {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The VAT rate of the account's country in the country catalogue; 0 for an unknown country. */
export function accountVatRate(
  account: AccountState,
  countries: readonly CountryRecord[] = COUNTRIES,
): number {
  return countries.find((c) => c.iso_a2 === account.profile.country)?.vat ?? 0;
}

/**
 * Recomputes an unpaid invoice's amounts from its items, the account's current country (VAT,
 * from `countries`, the catalogue) and the stored fixed discount. Paid invoices are left alone:
 * they are final documents, so a later change of country or tax id must not rewrite them.
 */
export function recomputeInvoice(
  account: AccountState,
  invoice: InvoiceRecord,
  now: Timestamp,
  countries: readonly CountryRecord[] = COUNTRIES,
): void {
  if (invoice.paid) return;
  const { cents } = computeInvoice({
    items: invoice.invoice_items,
    vatRatePercent: accountVatRate(account, countries),
    discount: { kind: "amount", cents: invoice.discount_cents },
  });
  storeTotals(account, invoice, cents, now);
}

/** Writes computed amounts (and the account's current tax id) onto an unpaid invoice. */
function storeTotals(
  account: AccountState,
  invoice: InvoiceRecord,
  cents: InvoiceTotalsCents,
  now: Timestamp,
): void {
  invoice.subtotal_cents = cents.subtotal;
  invoice.discount_cents = cents.discount;
  invoice.vat_cents = cents.vat;
  invoice.total_cents = cents.total;
  invoice.outstanding_cents = cents.outstanding;
  invoice.tax_id = account.profile.tax_id;
  invoice.updated_at = now;
  account.invoices.update(invoice);
}

function openInvoiceFor(
  account: AccountState,
  period: BillingPeriod,
  now: Timestamp,
  nextId: (kind: IdKind) => number,
): InvoiceRecord {
  const billingMonth = isoSeconds(period.from);
  const [open] = account.invoices.lookup("open_month", billingMonth);
  if (open !== undefined) return open;
  const id = nextId("invoice");
  const invoice: InvoiceRecord = {
    id,
    unique_id: randomUUID(),
    invoice_number: `INV-${period.from.getUTCFullYear()}-${String(id).padStart(5, "0")}`,
    billing_month: billingMonth,
    from_date: billingMonth,
    to_date: isoSeconds(period.to),
    due_date: isoSeconds(new Date(period.end.getTime() + PAYMENT_TERM_DAYS * 86_400_000)),
    subtotal_cents: 0,
    discount_cents: 0,
    vat_cents: 0,
    total_cents: 0,
    outstanding_cents: 0,
    paid: false,
    tax_id: account.profile.tax_id,
    invoice_items: [],
    created_at: now,
    updated_at: now,
  };
  account.invoices.insert(invoice);
  return invoice;
}

/**
 * Records the order of one server and bills it: creates an Order with a single order line
 * (`{plan_id, quantity: 1, price_cents, server_ids: [serverId]}`), then adds an item for the
 * plan to the account's open invoice of the current billing month (creating that invoice, with
 * its number, period and due date, when none is open), prorated from `now` to the end of the
 * month, and recomputes the invoice's amounts with the VAT rate of the account's country.
 * Call it after validating the request, in the same handler that creates the server, and
 * store the returned order id on the server (`order_id`). Returns the order id.
 */
export function recordServerOrder(
  account: AccountState,
  input: BillingContext & { userId: number; plan: PlanRecord; serverId: number },
): number {
  const { plan, now, nextId } = input;
  const monthlyCents = priceToCents(plan.price);
  const period = billingPeriod(now);
  const periodSeconds = Math.round((period.end.getTime() - period.from.getTime()) / 1000);
  const activeSeconds = Math.min(
    periodSeconds,
    Math.max(0, Math.round((period.end.getTime() - new Date(now).getTime()) / 1000)),
  );
  const orderId = nextId("order");
  const order = {
    id: orderId,
    unique_id: randomUUID(),
    user_id: input.userId,
    order_plans: [
      {
        id: nextId("order_plan"),
        plan_id: plan.id,
        quantity: 1,
        price_cents: monthlyCents,
        server_ids: [input.serverId],
      },
    ],
    created_at: now,
    updated_at: now,
  };
  const item = {
    plan_id: plan.id,
    amount_cents: proratedCents(monthlyCents, activeSeconds, periodSeconds),
    billing_for: `${plan.name} (server ${input.serverId}), ${now.slice(0, 10)} – ${isoSeconds(period.to).slice(0, 10)}`,
  };
  account.orders.insert(order);
  addInvoiceItem(account, {
    at: now,
    item,
    now,
    nextId,
    ...(input.countries === undefined ? {} : { countries: input.countries }),
  });
  return orderId;
}

/**
 * Bills `item` on the account's open invoice of the billing month that contains `at` (opening
 * that invoice, with its number, period and due date, when none is open) and recomputes the
 * invoice's amounts with the VAT rate of the account's country. Returns the invoice.
 */
export function addInvoiceItem(
  account: AccountState,
  input: BillingContext & { at: Timestamp; item: InvoiceItemRecord },
): InvoiceRecord {
  const invoice = openInvoiceFor(account, billingPeriod(input.at), input.now, input.nextId);
  invoice.invoice_items.push(input.item);
  // From the running subtotal: the same amounts as recomputeInvoice, without summing every
  // item again (a month's invoice of a large seeded fleet holds thousands).
  const cents = invoiceTotals({
    subtotal: invoice.subtotal_cents + input.item.amount_cents,
    vatRatePercent: accountVatRate(account, input.countries),
    discount: { kind: "amount", cents: invoice.discount_cents },
  });
  storeTotals(account, invoice, cents, input.now);
  return invoice;
}
