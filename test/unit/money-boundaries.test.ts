/*
 * Money's refusals word for word, negative percentages and the overflow guards (issue 27:
 * mutation testing found the wording unpinned, the guards never reached and the rate parser's
 * anchors removable).
 */
import { describe, expect, it } from "vitest";
import {
  formatCents,
  MoneyError,
  percentOf,
  priceToCents,
  sumCents,
  toCents,
} from "../../src/lib/money";

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a MoneyError");
}

describe("money's messages", () => {
  it.each([
    ["", 'amount "" is not a decimal amount like "12.34" or "-0.50"'],
    ["1.", 'amount "1." is not a decimal amount like "12.34" or "-0.50"'],
    ["x1.00", 'amount "x1.00" is not a decimal amount like "12.34" or "-0.50"'],
    ["1.00x", 'amount "1.00x" is not a decimal amount like "12.34" or "-0.50"'],
    ["12.345", 'amount "12.345" has 3 decimal places; at most 2 are allowed'],
    ["-0.12345", 'amount "-0.12345" has 5 decimal places; at most 2 are allowed'],
    ["x1.234", 'amount "x1.234" is not a decimal amount like "12.34" or "-0.50"'],
    ["1.234x", 'amount "1.234x" is not a decimal amount like "12.34" or "-0.50"'],
    ["90071992547409.92", 'amount "90071992547409.92" is too large to be counted exactly in cents'],
  ])("toCents(%j) says %j", (text, message) => {
    expect(messageOf(() => toCents(text))).toBe(message);
  });

  it("are MoneyErrors by name, as a stack trace prints them", () => {
    let caught: unknown;
    try {
      toCents("x");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MoneyError);
    expect((caught as Error).name).toBe("MoneyError");
    expect(String(caught)).toBe(
      'MoneyError: amount "x" is not a decimal amount like "12.34" or "-0.50"',
    );
  });

  it("names the amount, the price and the sum at fault", () => {
    expect(messageOf(() => formatCents(1.5))).toBe(
      "amount must be a whole number of cents, got 1.5",
    );
    expect(messageOf(() => priceToCents(Number.NaN))).toBe(
      "price must be a finite number, got NaN",
    );
    expect(messageOf(() => priceToCents(1e-7))).toBe(
      "price 1e-7 cannot be represented exactly in cents",
    );
    expect(messageOf(() => priceToCents(1e21))).toBe(
      "price 1e+21 cannot be represented exactly in cents",
    );
    expect(messageOf(() => sumCents([100, 0.5]))).toBe(
      "each amount must be a whole number of cents, got 0.5",
    );
    expect(messageOf(() => sumCents([Number.MAX_SAFE_INTEGER, 1]))).toBe(
      "the sum must be a whole number of cents, got 9007199254740992",
    );
    expect(sumCents([Number.MAX_SAFE_INTEGER - 1, 1])).toBe(Number.MAX_SAFE_INTEGER);
    expect(sumCents([])).toBe(0);
  });
});

describe("percentOf", () => {
  it.each([
    [1000, -5, -50],
    [-1000, -5, 50],
    [-1000, 5, -50],
    [10, -5, -1],
    [-10, 5, -1],
    [-10, -5, 1],
    [1000, "-2.5", -25],
    [1000, " 8.1 ", 81],
    [1000, "8.10", 81],
    [1000, 0, 0],
  ])("%i cents × %j percent is %i cents", (cents, rate, expected) => {
    expect(percentOf(cents, rate)).toBe(expected);
  });

  it("gives plain zero, never -0, when a negative product rounds to nothing", () => {
    expect(Object.is(percentOf(1, -5), 0)).toBe(true);
    expect(Object.is(percentOf(-1, 5), 0)).toBe(true);
  });

  it.each([
    ["8.1%", 'percentage "8.1%" is not a decimal number'],
    ["x8", 'percentage "x8" is not a decimal number'],
    ["8x", 'percentage "8x" is not a decimal number'],
    ["8.", 'percentage "8." is not a decimal number'],
    ["+8", 'percentage "+8" is not a decimal number'],
    ["", 'percentage "" is not a decimal number'],
    [Number.NaN, "percentage NaN is not a decimal number"],
    [Number.POSITIVE_INFINITY, "percentage Infinity is not a decimal number"],
    [1e21, "percentage 1e+21 is not a decimal number"],
  ])("refuses the rate %j: %s", (rate, message) => {
    expect(messageOf(() => percentOf(100, rate))).toBe(message);
  });

  it("counts up to 2^53 - 1 cents exactly and refuses beyond", () => {
    expect(percentOf(Number.MAX_SAFE_INTEGER, 100)).toBe(Number.MAX_SAFE_INTEGER);
    expect(percentOf(-Number.MAX_SAFE_INTEGER, 100)).toBe(-Number.MAX_SAFE_INTEGER);
    expect(messageOf(() => percentOf(Number.MAX_SAFE_INTEGER, 200))).toBe(
      "200% of 90071992547409.91 is too large to count exactly",
    );
    expect(messageOf(() => percentOf(-Number.MAX_SAFE_INTEGER, 200))).toBe(
      "200% of -90071992547409.91 is too large to count exactly",
    );
    expect(messageOf(() => percentOf(1.5, 10))).toBe(
      "amount must be a whole number of cents, got 1.5",
    );
  });
});
