/**
 * Payments: paying an invoice with the account's default card, and the card rules the wallet
 * routes share. A paid invoice is final: it is never recomputed or paid again.
 */
import { randomBytes } from "node:crypto";
import { conflict } from "../http/http-errors";
import type { AccountState, CardRecord, InvoiceRecord, Timestamp } from "../store/state";

/** A card is valid through the last day of its `MM/YY` month. */
export function cardExpired(card: CardRecord, now: Timestamp): boolean {
  const match = /^(\d{2})\/(\d{2})$/.exec(card.exp);
  if (match === null) return true;
  const firstInvalid = Date.UTC(2000 + Number(match[2]), Number(match[1]), 1);
  return new Date(now).getTime() >= firstInvalid;
}

export function describeCard(card: CardRecord): string {
  return `${card.brand} ending in ${card.last4}`;
}

export type PaymentResult =
  | { paid: true; ref: string; chargedCents: number; card: CardRecord }
  | { paid: false; declined: string };

/**
 * Pays `invoice`'s outstanding amount with the default card (409 when it is already paid or no
 * card is the default). An expired card declines the payment and changes nothing.
 */
export function payInvoice(
  account: AccountState,
  invoice: InvoiceRecord,
  now: Timestamp,
): PaymentResult {
  if (invoice.paid) {
    throw conflict(
      `Invoice ${invoice.invoice_number} is already paid (${invoice.payment_ref_id ?? "no charge"})`,
    );
  }
  const card = account.cards.all().find((c) => c.default);
  if (card === undefined) {
    throw conflict("No default payment method; make a card the default first");
  }
  if (cardExpired(card, now)) {
    return {
      paid: false,
      declined: `Declined: the default card (${describeCard(card)}) expired ${card.exp}`,
    };
  }
  const charged = invoice.outstanding_cents;
  const ref = `pay_${randomBytes(12).toString("hex")}`;
  invoice.paid = true;
  invoice.paid_at = now;
  invoice.payment_ref_id = ref;
  invoice.outstanding_cents = 0;
  invoice.updated_at = now;
  account.invoices.update(invoice);
  return { paid: true, ref, chargedCents: charged, card };
}

/** Makes `card` the default (409 when it expired); false when it already was. */
export function makeDefaultCard(
  author: { account: AccountState; now(): Timestamp },
  card: CardRecord,
): boolean {
  if (card.default) return false;
  if (cardExpired(card, author.now())) {
    throw conflict(`${describeCard(card)} expired ${card.exp} and cannot be the default`);
  }
  for (const other of author.account.cards) {
    if (other.default === (other.id === card.id)) continue;
    other.default = other.id === card.id;
    author.account.cards.update(other);
  }
  return true;
}

/** Deletes `card`; the default one only when it is the last (409 otherwise). */
export function deleteCard(account: AccountState, card: CardRecord): void {
  if (card.default && account.cards.size > 1) {
    throw conflict(
      `${describeCard(card)} is the default payment method; make another card the default before deleting it`,
    );
  }
  account.cards.remove(card.id);
}
