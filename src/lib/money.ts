/**
 * Money as integer cents inside, two-decimal strings on the wire ("12.34").
 *
 * Binary floating point cannot represent most cent amounts (0.1 + 0.2 !== 0.3), so sums and
 * percentages are done on integers only; the one conversion from a JSON number (a plan price)
 * goes through its decimal text, never through multiplication.
 */
import { CloudInfraError, nameErrorClass } from "../api/errors";

/** An amount of money in integer cents (may be negative for credits and refunds). */
export type Cents = number;

/** Raised for a malformed amount or an amount that cannot be represented exactly. */
export class MoneyError extends CloudInfraError {
  static {
    nameErrorClass(MoneyError, "MoneyError");
  }
}

const DECIMAL_AMOUNT = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

function assertCents(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new MoneyError(`${what} must be a whole number of cents, got ${value}`);
  }
}

/**
 * Parses a decimal amount such as `"12.34"`, `"-0.50"`, `"7"` or `"7.5"` into cents.
 *
 * @throws {MoneyError} for anything else: empty text, a sign other than a leading `-`,
 *   thousands separators, exponents, more than two decimal places (which would silently lose
 *   money), or an amount too large to count exactly.
 */
export function toCents(text: string): Cents {
  const match = DECIMAL_AMOUNT.exec(text);
  if (match === null) {
    const fraction = /^-?\d+\.(\d{3,})$/.exec(text);
    if (fraction !== null) {
      throw new MoneyError(
        `amount "${text}" has ${fraction[1]?.length} decimal places; at most 2 are allowed`,
      );
    }
    throw new MoneyError(
      `amount ${JSON.stringify(text)} is not a decimal amount like "12.34" or "-0.50"`,
    );
  }
  const [, sign, whole = "", fraction = ""] = match;
  const magnitude = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0"));
  if (magnitude > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyError(`amount "${text}" is too large to be counted exactly in cents`);
  }
  const cents = Number(magnitude);
  // `-0` would print as "0.00" but compare oddly with Object.is; keep zero unsigned.
  return sign === "-" && cents !== 0 ? -cents : cents;
}

/** Formats cents as the wire's two-decimal string: `1234 → "12.34"`, `-5 → "-0.05"`. */
export function formatCents(cents: Cents): string {
  assertCents(cents, "amount");
  const magnitude = Math.abs(cents);
  const whole = Math.trunc(magnitude / 100);
  const fraction = String(magnitude % 100).padStart(2, "0");
  return `${cents < 0 ? "-" : ""}${whole}.${fraction}`;
}

/**
 * Converts a price given as a JSON number (e.g. a plan's monthly `price: 4.99`) into cents,
 * through its shortest decimal spelling, so `4.99` is exactly 499 and never 498.99999.
 *
 * @throws {MoneyError} when the number has more than two decimal places or is not finite.
 */
export function priceToCents(price: number): Cents {
  if (!Number.isFinite(price)) throw new MoneyError(`price must be a finite number, got ${price}`);
  const text = String(price);
  if (/e/i.test(text)) {
    throw new MoneyError(`price ${text} cannot be represented exactly in cents`);
  }
  return toCents(text);
}

/** Sums amounts of cents exactly; fails instead of losing precision beyond 2^53 cents. */
export function sumCents(amounts: Iterable<Cents>): Cents {
  let total = 0;
  for (const amount of amounts) {
    assertCents(amount, "each amount");
    total += amount;
    assertCents(total, "the sum");
  }
  return total;
}

/** Parses a percentage (number or decimal text) into an exact fraction `numerator / 10^scale`. */
function parseRate(ratePercent: number | string): { numerator: bigint; scale: bigint } {
  const text = typeof ratePercent === "number" ? String(ratePercent) : ratePercent.trim();
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  // NaN, Infinity and exponents (`1e+21`) are not decimal text either, so the pattern refuses them.
  if (match === null) {
    const shown = typeof ratePercent === "number" ? text : JSON.stringify(ratePercent);
    throw new MoneyError(`percentage ${shown} is not a decimal number`);
  }
  const [, sign, whole = "", fraction = ""] = match;
  const numerator = BigInt(`${whole}${fraction}`) * (sign === "-" ? -1n : 1n);
  return { numerator, scale: 10n ** BigInt(fraction.length) };
}

/**
 * `ratePercent` % of an amount, rounded to the cent **half-up** — ties go away from zero
 * (Java's `RoundingMode.HALF_UP`, the usual commercial rule for VAT): 5 % of 0.10 is 0.01, and
 * 5 % of -0.10 is -0.01. Exact for fractional rates such as 25.5 or 8.1: the rate is read as
 * decimal text and the product is computed with big integers, so no float ever rounds first.
 *
 * @param cents the base amount.
 * @param ratePercent a percentage, e.g. `19`, `25.5`, or the string `"8.1"`.
 */
export function percentOf(cents: Cents, ratePercent: number | string): Cents {
  assertCents(cents, "amount");
  const { numerator, scale } = parseRate(ratePercent);
  const product = BigInt(cents) * numerator;
  const divisor = 100n * scale;
  const negative = product < 0n;
  const magnitude = negative ? -product : product;
  const rounded = (magnitude * 2n + divisor) / (divisor * 2n);
  if (rounded > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MoneyError(`${ratePercent}% of ${formatCents(cents)} is too large to count exactly`);
  }
  const result = Number(rounded);
  return negative && result !== 0 ? -result : result;
}
