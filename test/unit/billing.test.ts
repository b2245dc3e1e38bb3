import { describe, expect, it } from "vitest";
import { COUNTRIES } from "../../src/emulator/data";
import { computeInvoice, type Discount, proratedCents } from "../../src/emulator/service/billing";
import { priceToCents, toCents } from "../../src/lib/money";

type InvoiceItemInput = Parameters<typeof computeInvoice>[0]["items"][number];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VPS_S = { id: 2, price: 4.99 };
const VPS_M = { id: 3, price: 9.49 };
/** The item billing a plan for a full month, from its catalogue price (as orders.ts bills). */
const monthOf = (plan: { id: number; price: number }, billingFor: string): InvoiceItemInput => ({
  plan_id: plan.id,
  amount_cents: priceToCents(plan.price),
  billing_for: billingFor,
});
const twoServers = [monthOf(VPS_S, "web-1 (January 2026)"), monthOf(VPS_M, "db-1 (January 2026)")];

describe("computeInvoice on invoices worked out by hand", () => {
  // Subtotal 4.99 + 9.49 = 14.48 throughout.
  it.each([
    ["Germany", 19, "2.75", "17.23"], // 14.48 × 0.19 = 2.7512
    ["Finland", 25.5, "3.69", "18.17"], // 14.48 × 0.255 = 3.6924
    ["Switzerland", 8.1, "1.17", "15.65"], // 14.48 × 0.081 = 1.17288
    ["Hungary", 27, "3.91", "18.39"], // 14.48 × 0.27 = 3.9096
    ["the United States", 0, "0.00", "14.48"],
  ])("bills an account in %s (%s %% VAT)", (_, rate, vat, total) => {
    const { wire } = computeInvoice({ items: twoServers, vatRatePercent: rate });
    expect(wire).toMatchObject({
      subtotal_amount: "14.48",
      discount: "0.00",
      vat_amount: vat,
      total_amount: total,
      outstanding_amount: total,
      paid: false,
    });
    expect(wire.invoice_items).toEqual([
      { plan_id: 2, amount: "4.99", billing_for: "web-1 (January 2026)" },
      { plan_id: 3, amount: "9.49", billing_for: "db-1 (January 2026)" },
    ]);
  });

  it("charges VAT after a percentage discount", () => {
    // Discount 1.448 → 1.45; VAT on 13.03 is 2.4757 → 2.48; total 13.03 + 2.48.
    const { wire } = computeInvoice({
      items: twoServers,
      vatRatePercent: 19,
      discount: { kind: "percent", percent: 10 },
    });
    expect(wire).toMatchObject({ discount: "1.45", vat_amount: "2.48", total_amount: "15.51" });
  });

  it("caps a fixed discount at the subtotal, leaving nothing to pay", () => {
    const { wire, cents } = computeInvoice({
      items: twoServers,
      vatRatePercent: 19,
      discount: { kind: "amount", cents: 2000 },
    });
    expect(wire).toMatchObject({
      discount: "14.48",
      vat_amount: "0.00",
      total_amount: "0.00",
      outstanding_amount: "0.00",
      paid: true,
    });
    expect(cents.credit).toBe(0);
  });

  it("rounds VAT once per invoice, not per line", () => {
    // Three 0.10 items at 5 %: per line 3 × round(0.005) = 0.03; on the sum 0.015 → 0.02.
    const items = [1, 2, 3].map((id) => ({ plan_id: id, amount_cents: 10, billing_for: `#${id}` }));
    expect(computeInvoice({ items, vatRatePercent: 5 }).wire.vat_amount).toBe("0.02");
  });

  it("adds ten items of 0.10 to exactly 1.00", () => {
    const items = Array.from({ length: 10 }, () => ({
      plan_id: 1,
      amount_cents: toCents("0.10"),
      billing_for: "x",
    }));
    expect(computeInvoice({ items, vatRatePercent: 0 }).wire.subtotal_amount).toBe("1.00");
  });

  it("tracks partial payments, full payment and overpayment", () => {
    const partly = computeInvoice({ items: twoServers, vatRatePercent: 19, paymentsCents: [1000] });
    expect(partly.wire).toMatchObject({ outstanding_amount: "7.23", paid: false });

    const fully = computeInvoice({
      items: twoServers,
      vatRatePercent: 19,
      paymentsCents: [1000, 723],
    });
    expect(fully.wire).toMatchObject({ outstanding_amount: "0.00", paid: true });

    const over = computeInvoice({ items: twoServers, vatRatePercent: 19, paymentsCents: [2000] });
    expect(over.wire).toMatchObject({ outstanding_amount: "0.00", paid: true });
    expect(over.cents.credit).toBe(2000 - 1723);
  });

  it("bills an empty invoice as zero and already settled", () => {
    expect(computeInvoice({ items: [], vatRatePercent: 21 }).wire).toMatchObject({
      subtotal_amount: "0.00",
      total_amount: "0.00",
      paid: true,
    });
  });
});

describe("computeInvoice refuses impossible inputs", () => {
  const item = (amount_cents: number): InvoiceItemInput => ({
    plan_id: 1,
    amount_cents,
    billing_for: "web-1",
  });

  it.each([
    [
      "a negative item",
      [item(-100)],
      19,
      undefined,
      [],
      /invoice item 1 \(web-1\) must be a non-negative/,
    ],
    ["a fraction of a cent", [item(1.5)], 19, undefined, [], /whole number of cents, got 1.5/],
    [
      "a VAT rate above 100 %",
      [item(100)],
      120,
      undefined,
      [],
      /VAT rate must be between 0 and 100/,
    ],
    ["a negative VAT rate", [item(100)], -1, undefined, [], /VAT rate must be between 0 and 100/],
    [
      "a discount above 100 %",
      [item(100)],
      19,
      { kind: "percent", percent: 101 },
      [],
      /percentage discount must be between 0 and 100/,
    ],
    [
      "a negative fixed discount",
      [item(100)],
      19,
      { kind: "amount", cents: -5 },
      [],
      /fixed discount must be a non-negative/,
    ],
    ["a negative payment", [item(100)], 19, undefined, [-1], /payment 1 must be/],
  ] satisfies [string, InvoiceItemInput[], number, Discount | undefined, number[], RegExp][])(
    "refuses %s",
    (_, items, vatRatePercent, discount, paymentsCents, message) => {
      const input = { items, vatRatePercent, paymentsCents, ...(discount ? { discount } : {}) };
      expect(() => computeInvoice(input)).toThrow(message);
      expect(() => computeInvoice(input)).toThrow(
        expect.objectContaining({ name: "BillingError" }),
      );
    },
  );
});

describe("computeInvoice properties over many generated invoices", () => {
  const rates = [...new Set(COUNTRIES.map((c) => c.vat))];

  it("keeps total = subtotal − discount + vat exactly, VAT to the nearest cent", () => {
    const random = mulberry32(2026);
    const int = (max: number) => Math.floor(random() * (max + 1));
    for (let run = 0; run < 3000; run++) {
      const items = Array.from({ length: int(8) }, (_, i) => ({
        plan_id: i + 1,
        amount_cents: int(random() < 0.1 ? 10_000_000 : 50_000),
        billing_for: `item ${i}`,
      }));
      const vatRatePercent =
        random() < 0.7 ? rates[int(rates.length - 1)]! : Number((int(3000) / 100).toFixed(2));
      const discountRoll = random();
      const discount: Discount | undefined =
        discountRoll < 0.3
          ? { kind: "percent", percent: int(1000) / 10 }
          : discountRoll < 0.6
            ? { kind: "amount", cents: int(60_000) }
            : undefined;
      const paymentsCents = Array.from({ length: int(3) }, () => int(60_000));
      const input = {
        items,
        vatRatePercent,
        paymentsCents,
        ...(discount === undefined ? {} : { discount }),
      };
      const { wire } = computeInvoice(input);

      for (const amount of [
        wire.subtotal_amount,
        wire.discount,
        wire.vat_amount,
        wire.total_amount,
        wire.outstanding_amount,
      ]) {
        expect(amount).toMatch(/^\d+\.\d{2}$/);
      }
      const subtotal = toCents(wire.subtotal_amount);
      const discountAmount = toCents(wire.discount);
      const vat = toCents(wire.vat_amount);
      const total = toCents(wire.total_amount);
      const outstanding = toCents(wire.outstanding_amount);

      expect(subtotal).toBe(items.reduce((sum, item) => sum + item.amount_cents, 0));
      expect(wire.invoice_items.map((i) => toCents(i.amount))).toEqual(
        items.map((i) => i.amount_cents),
      );
      expect(discountAmount).toBeGreaterThanOrEqual(0);
      expect(discountAmount).toBeLessThanOrEqual(subtotal);
      expect(total).toBe(subtotal - discountAmount + vat);

      // VAT within half a cent of the exact value (exact rational arithmetic); ties round up.
      const rateHundredths = BigInt(Math.round(vatRatePercent * 100));
      const exactTimes10000 = BigInt(subtotal - discountAmount) * rateHundredths;
      const error = BigInt(vat) * 10_000n - exactTimes10000;
      expect(error > -5_000n && error <= 5_000n).toBe(true);

      const paid = paymentsCents.reduce((sum, p) => sum + p, 0);
      expect(outstanding).toBe(Math.max(0, total - paid));
      expect(wire.paid).toBe(outstanding === 0);
    }
  });
});

describe("plan prices and proratedCents", () => {
  it("bills a plan's catalogue price exactly", () => {
    expect(priceToCents(18.99) * 3).toBe(5697);
    expect(priceToCents(19.99)).toBe(1999);
  });

  it("prorates a monthly price by time used, half-up to the cent", () => {
    const day = 86_400;
    expect(proratedCents(499, 15 * day, 30 * day)).toBe(250); // 249.5 → 250
    expect(proratedCents(3100, day, 31 * day)).toBe(100);
    expect(proratedCents(949, 0, 30 * day)).toBe(0);
    expect(proratedCents(949, 30 * day, 30 * day)).toBe(949);
    expect(proratedCents(1000, 10 * day, 30 * day)).toBe(333);
    expect(() => proratedCents(499, 31 * day, 30 * day)).toThrow(/active time must be between/);
  });
});
