/** Billing: orders, invoices, manual payments, stored payment methods (spec: Billing). */
import { z } from "zod";
import { DateOrTimestampSchema, listOf, MoneySchema, TimestampSchema } from "./common";

/** A plan within an order (project decision; the spec shows only the name). */
export const OrderPlanSchema = z.object({
  /** Id of the order line. */
  id: z.int().describe("Order line id"),
  /** The order. */
  order_id: z.int().nullish().describe("Order id"),
  /** The ordered plan. */
  plan_id: z.int().describe("Plan id"),
  /** How many servers of the plan were ordered. */
  quantity: z.int().nullish().describe("Quantity ordered"),
});
export type OrderPlan = z.infer<typeof OrderPlanSchema>;

/** An order (spec: Order). */
export const OrderSchema = z.object({
  /** Order id. */
  id: z.int().describe("Order id"),
  /** Globally unique order identifier. */
  unique_id: z.string().describe("Globally unique order identifier"),
  /** Ordering user. */
  user_id: z.int().describe("Ordering user"),
  /** Account. */
  account_id: z.int().describe("Account"),
  /** Plans in the order. */
  order_plans: listOf(OrderPlanSchema).describe("Plans in the order"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Order = z.infer<typeof OrderSchema>;
export const OrderListSchema = z.array(OrderSchema);

/** A billed item (spec: "an item carries plan_id, amount and billing_for"). */
export const InvoiceItemSchema = z.object({
  /** Item id (project decision). */
  id: z.int().nullish().describe("Item id"),
  /** The billed plan. */
  plan_id: z.int().describe("Billed plan"),
  /** Amount, decimal string with two places. */
  amount: MoneySchema.describe("Amount, decimal string"),
  /** What the item bills for, as text (for example the server name and period). */
  billing_for: z.string().describe("What the item bills for"),
  /** Item description (project decision). */
  description: z.string().nullish().describe("Item description"),
});
export type InvoiceItem = z.infer<typeof InvoiceItemSchema>;

/** An invoice (spec: Invoice). Every amount is a decimal string with two places. */
export const InvoiceSchema = z.object({
  /** Invoice id. */
  id: z.int().describe("Invoice id"),
  /** System-wide identifier. */
  unique_id: z.string().describe("System-wide identifier"),
  /** Human-readable number. */
  invoice_number: z.string().describe("Human-readable number"),
  /** Account. */
  account_id: z.int().describe("Account"),
  /** Month covered, as a timestamp of its first instant. */
  billing_month: DateOrTimestampSchema.describe("Month covered"),
  /** Period start. */
  from_date: DateOrTimestampSchema.describe("Period start"),
  /** Period end. */
  to_date: DateOrTimestampSchema.describe("Period end"),
  /** Payment due date. */
  due_date: DateOrTimestampSchema.describe("Payment due date"),
  /** Amount before tax and discount. */
  subtotal_amount: MoneySchema.describe("Amount before tax and discount"),
  /** Discount. */
  discount: MoneySchema.describe("Discount"),
  /** VAT or tax. */
  vat_amount: MoneySchema.describe("VAT or tax"),
  /** Total after tax and discount. */
  total_amount: MoneySchema.describe("Total after tax and discount"),
  /** Unpaid remainder. */
  outstanding_amount: MoneySchema.describe("Unpaid remainder"),
  /** Fully paid. */
  paid: z.boolean().describe("Fully paid"),
  /** Payment timestamp, when paid. */
  paid_at: TimestampSchema.nullish().describe("Payment timestamp, when paid"),
  /** Payment transaction reference, when paid. */
  payment_ref_id: z.string().nullish().describe("Payment transaction reference"),
  /** Tax identifier of the billing account. */
  tax_id: z.string().nullish().describe("Tax identifier of the billing account"),
  /** Billed items. */
  invoice_items: listOf(InvoiceItemSchema).describe("Billed items"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Invoice = z.infer<typeof InvoiceSchema>;
export const InvoiceListSchema = z.array(InvoiceSchema);

/** Answer of a manual payment (spec: InvoicePayment). */
export const InvoicePaymentSchema = z.object({
  /** Whether the invoice is now paid. */
  paid: z.boolean().describe("Whether the invoice is paid"),
  /** Payment transaction reference. */
  payment_ref: z.string().nullish().describe("Payment transaction reference"),
  /** Optional message, for example why the payment failed. */
  message: z.string().nullish().describe("Optional message"),
  /** Remaining outstanding amount. */
  outstanding: MoneySchema.describe("Remaining outstanding amount"),
});
export type InvoicePayment = z.infer<typeof InvoicePaymentSchema>;

/** A stored payment method (spec: PaymentMethod). */
export const PaymentMethodSchema = z.object({
  /** Payment method id (a string, unlike other ids). */
  id: z.string().describe("Payment method id"),
  /** Brand or type, for example `visa`. */
  brand: z.string().describe("Brand or type of the payment method"),
  /** Last four digits. */
  last4: z.string().describe("Last four digits"),
  /** Expiry, `MM/YY`. */
  exp: z.string().describe("Expiry, MM/YY"),
  /** Whether it is the default method. */
  default: z.boolean().describe("Whether it is the default method"),
});
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;
export const PaymentMethodListSchema = z.array(PaymentMethodSchema);
