/**
 * Invoice arithmetic for the emulator: pure functions over integer cents, with the wire's
 * two-decimal strings produced only at the end (see `src/lib/money.ts`).
 *
 * The order of operations is the one tax authorities expect and a reader can re-do by hand:
 *
 * 1. `subtotal` = sum of the item amounts;
 * 2. `discount` = a percentage of the subtotal (rounded half-up to the cent) or a fixed amount,
 *    never more than the subtotal;
 * 3. `vat` = VAT rate × (subtotal − discount), rounded half-up to the cent, **once per invoice**
 *    (not per line, which would let rounding differences add up);
 * 4. `total` = subtotal − discount + vat;
 * 5. `outstanding` = total − payments, never below zero; an overpayment is reported as `credit`.
 */
import { type Cents, formatCents, percentOf, sumCents } from "../../lib/money";

/** One billed item before formatting. */
interface InvoiceItemInput {
  /** The billed plan. */
  plan_id: number;
  /** Amount in cents; must not be negative (reductions are discounts). */
  amount_cents: Cents;
  /** What the item bills for, e.g. `web-1 (2026-01-01 – 2026-01-31)`. */
  billing_for: string;
}

/**
 * A discount on the subtotal. Both kinds exist because both occur on real invoices: a
 * contractual percentage, and a one-off voucher of a fixed amount.
 */
export type Discount =
  /** A percentage of the subtotal, 0–100, e.g. `{ kind: "percent", percent: 10 }`. */
  | { kind: "percent"; percent: number | string }
  /** A fixed amount in cents; anything above the subtotal is forfeited, not carried over. */
  | { kind: "amount"; cents: Cents };

/** Everything an invoice's amounts depend on. */
export interface InvoiceInput {
  /** Billed items. */
  items: readonly InvoiceItemInput[];
  /** The account country's standard VAT rate in percent (may be fractional: 25.5, 8.1). */
  vatRatePercent: number | string;
  /** Optional discount on the subtotal. */
  discount?: Discount;
  /** Payments received so far, in cents. */
  paymentsCents?: readonly Cents[];
}

/** The invoice's amounts in cents, for storage and further arithmetic. */
export interface InvoiceTotalsCents {
  subtotal: Cents;
  discount: Cents;
  /** subtotal − discount: the amount VAT is charged on. */
  taxable: Cents;
  vat: Cents;
  total: Cents;
  /** Sum of the payments received. */
  paid: Cents;
  outstanding: Cents;
  /** Amount paid beyond the total, to be credited to the account. */
  credit: Cents;
}

/** One billed item as the wire shows it (spec: InvoiceItem). */
export interface InvoiceItemAmount {
  plan_id: number;
  /** Decimal string with two places. */
  amount: string;
  billing_for: string;
}

/** The invoice's amounts as the wire shows them (fields of spec: Invoice). */
export interface InvoiceAmounts {
  subtotal_amount: string;
  discount: string;
  vat_amount: string;
  total_amount: string;
  outstanding_amount: string;
  /** True once nothing is outstanding (also for an invoice that totals zero). */
  paid: boolean;
  invoice_items: InvoiceItemAmount[];
}

/** Result of {@link computeInvoice}: the same amounts in cents and in wire form. */
export interface ComputedInvoice {
  cents: InvoiceTotalsCents;
  wire: InvoiceAmounts;
}

/** Raised for inputs that no invoice can have (negative items, a 120 % discount, ...). */
class BillingError extends Error {
  override readonly name = "BillingError";
}

function assertPercent(value: number | string, what: string): void {
  const numeric = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(numeric) || numeric < 0 || numeric > 100) {
    throw new BillingError(`${what} must be between 0 and 100 percent, got ${value}`);
  }
}

function assertNonNegativeCents(value: Cents, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new BillingError(`${what} must be a non-negative whole number of cents, got ${value}`);
  }
}

function discountCents(subtotal: Cents, discount: Discount | undefined): Cents {
  if (discount === undefined) return 0;
  if (discount.kind === "percent") {
    assertPercent(discount.percent, "a percentage discount");
    return Math.min(subtotal, percentOf(subtotal, discount.percent));
  }
  assertNonNegativeCents(discount.cents, "a fixed discount");
  return Math.min(subtotal, discount.cents);
}

/**
 * Steps 2 to 5 for items that add up to `subtotal`: what {@link computeInvoice} does after
 * summing, for a caller that keeps the running subtotal of a growing invoice.
 *
 * @throws {BillingError} as {@link computeInvoice} does, items aside.
 */
export function invoiceTotals(
  input: Omit<InvoiceInput, "items"> & { subtotal: Cents },
): InvoiceTotalsCents {
  assertPercent(input.vatRatePercent, "the VAT rate");
  const payments = input.paymentsCents ?? [];
  payments.forEach((payment, index) => {
    assertNonNegativeCents(payment, `payment ${index + 1}`);
  });
  const { subtotal } = input;
  const discount = discountCents(subtotal, input.discount);
  const taxable = subtotal - discount;
  const vat = percentOf(taxable, input.vatRatePercent);
  const total = sumCents([taxable, vat]);
  const paid = sumCents(payments);
  const outstanding = Math.max(0, total - paid);
  const credit = Math.max(0, paid - total);
  return { subtotal, discount, taxable, vat, total, paid, outstanding, credit };
}

/**
 * Computes an invoice's subtotal, discount, VAT, total and outstanding amount.
 *
 * @throws {BillingError} for a negative item or payment, a VAT rate or percentage discount
 *   outside 0–100, or a fixed discount that is not a whole number of cents.
 */
export function computeInvoice(input: InvoiceInput): ComputedInvoice {
  input.items.forEach((item, index) => {
    assertNonNegativeCents(item.amount_cents, `invoice item ${index + 1} (${item.billing_for})`);
  });
  const cents = invoiceTotals({
    ...input,
    subtotal: sumCents(input.items.map((item) => item.amount_cents)),
  });
  const { subtotal, discount, vat, total, outstanding } = cents;

  return {
    cents,
    wire: {
      subtotal_amount: formatCents(subtotal),
      discount: formatCents(discount),
      vat_amount: formatCents(vat),
      total_amount: formatCents(total),
      outstanding_amount: formatCents(outstanding),
      paid: outstanding === 0,
      invoice_items: input.items.map((item) => ({
        plan_id: item.plan_id,
        amount: formatCents(item.amount_cents),
        billing_for: item.billing_for,
      })),
    },
  };
}

/**
 * A monthly price for part of a billing period (a server created mid-month), rounded half-up
 * to the cent: `monthlyCents × activeSeconds / periodSeconds`, computed without floats.
 */
export function proratedCents(
  monthlyCents: Cents,
  activeSeconds: number,
  periodSeconds: number,
): Cents {
  assertNonNegativeCents(monthlyCents, "the monthly amount");
  if (!Number.isSafeInteger(periodSeconds) || periodSeconds <= 0) {
    throw new BillingError(`the billing period must be a positive number of seconds`);
  }
  if (!Number.isSafeInteger(activeSeconds) || activeSeconds < 0 || activeSeconds > periodSeconds) {
    throw new BillingError(
      `active time must be between 0 and ${periodSeconds} seconds, got ${activeSeconds}`,
    );
  }
  const numerator = BigInt(monthlyCents) * BigInt(activeSeconds);
  const divisor = BigInt(periodSeconds);
  return Number((numerator * 2n + divisor) / (divisor * 2n));
}
