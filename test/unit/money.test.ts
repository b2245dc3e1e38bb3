import { describe, expect, it } from "vitest";
import {
  formatCents,
  MoneyError,
  percentOf,
  priceToCents,
  sumCents,
  toCents,
} from "../../src/lib/money";

/** Small deterministic PRNG so property-style cases are reproducible. */
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

describe("toCents", () => {
  it.each([
    ["12.34", 1234],
    ["0.01", 1],
    ["7", 700],
    ["7.5", 750],
    ["-0.50", -50],
    ["-123.45", -12345],
    ["0007.00", 700],
    ["90071992547409.91", Number.MAX_SAFE_INTEGER],
  ])("reads %s as %i cents", (text, cents) => {
    expect(toCents(text)).toBe(cents);
  });

  it("reads negative zero as plain zero", () => {
    expect(Object.is(toCents("-0.00"), 0)).toBe(true);
  });

  it.each([
    ["", /not a decimal amount like "12.34"/],
    [" 1.00", /not a decimal amount/],
    ["1,000.00", /not a decimal amount/],
    ["1e3", /not a decimal amount/],
    ["+1.00", /not a decimal amount/],
    [".50", /not a decimal amount/],
    ["1.", /not a decimal amount/],
    ["NaN", /not a decimal amount/],
    ["12.345", /has 3 decimal places; at most 2 are allowed/],
    ["90071992547409.92", /too large to be counted exactly/],
  ])("rejects %j with a clear message", (text, message) => {
    expect(() => toCents(text)).toThrow(MoneyError);
    expect(() => toCents(text)).toThrow(message);
  });
});

describe("formatCents", () => {
  it.each([
    [1234, "12.34"],
    [5, "0.05"],
    [-5, "-0.05"],
    [0, "0.00"],
    [100, "1.00"],
    [-12345, "-123.45"],
    [Number.MAX_SAFE_INTEGER, "90071992547409.91"],
  ])("writes %i cents as %s", (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it("refuses fractions of a cent and non-numbers", () => {
    expect(() => formatCents(1.5)).toThrow(/whole number of cents, got 1.5/);
    expect(() => formatCents(Number.NaN)).toThrow(MoneyError);
    expect(() => formatCents(Number.POSITIVE_INFINITY)).toThrow(MoneyError);
  });

  it("round-trips with toCents for many amounts", () => {
    const random = mulberry32(7);
    for (let i = 0; i < 2000; i++) {
      const cents = Math.floor((random() - 0.5) * 2 * 10 ** Math.floor(random() * 15));
      expect(toCents(formatCents(cents))).toBe(cents);
    }
  });
});

describe("priceToCents", () => {
  it("converts prices whose float times 100 is not a whole number", () => {
    // 19.99 * 100 === 1998.9999999999998 and 0.07 * 100 === 7.000000000000001 in IEEE 754.
    expect(priceToCents(19.99)).toBe(1999);
    expect(priceToCents(0.07)).toBe(7);
    expect(priceToCents(4.99)).toBe(499);
    expect(priceToCents(120)).toBe(12000);
  });

  it("refuses prices with fractions of a cent", () => {
    expect(() => priceToCents(1.005)).toThrow(/3 decimal places/);
    expect(() => priceToCents(1e-7)).toThrow(/cannot be represented exactly/);
    expect(() => priceToCents(Number.NaN)).toThrow(/finite/);
  });
});

describe("sumCents", () => {
  it("adds ten 0.10 amounts to exactly 1.00, unlike floats", () => {
    const tenCents = Array.from({ length: 10 }, () => toCents("0.10"));
    expect(formatCents(sumCents(tenCents))).toBe("1.00");
    expect(Array.from({ length: 10 }, () => 0.1).reduce((a, b) => a + b, 0)).not.toBe(1);
  });

  it("refuses fractional cents and overflowing sums", () => {
    expect(() => sumCents([100, 0.5])).toThrow(MoneyError);
    expect(() => sumCents([Number.MAX_SAFE_INTEGER, 1])).toThrow(/the sum/);
  });
});

describe("percentOf", () => {
  it.each([
    // [amount, rate, expected]: the expected amounts are worked out by hand.
    ["100.00", 19, "19.00"], // Germany, 19 % of 100.00
    ["9.99", 25.5, "2.55"], // Finland: 2.54745 rounds up
    ["4.99", 8.1, "0.40"], // Switzerland: 0.40419 rounds down
    ["4.99", "8.1", "0.40"],
    ["0.10", 5, "0.01"], // exact tie 0.005: half-up gives 0.01 (banker's rounding would give 0.00)
    ["1.50", 21, "0.32"], // 0.315 tie rounds up
    ["1.00", 2.5, "0.03"], // 0.025 tie with a fractional rate
    ["-0.10", 5, "-0.01"], // ties go away from zero, so refunds mirror charges
    ["0.01", 50, "0.01"],
    ["0.01", 49.99, "0.00"],
    ["1234.56", 0, "0.00"],
    ["1234.56", 100, "1234.56"],
  ])("%s × %s%% is %s", (amount, rate, expected) => {
    expect(formatCents(percentOf(toCents(amount), rate))).toBe(expected);
  });

  it("rounds exact ties up where float arithmetic lands just below them", () => {
    // 14.5 % of 1.00 is exactly 0.145, but 100 * (14.5 / 100) === 14.499999999999998.
    expect(Math.round(100 * (14.5 / 100))).toBe(14);
    expect(formatCents(percentOf(100, 14.5))).toBe("0.15");
  });

  it("is the nearest cent to the exact product, ties away from zero, for many cases", () => {
    const random = mulberry32(42);
    for (let i = 0; i < 5000; i++) {
      const cents = Math.floor((random() - 0.3) * 10 ** (1 + Math.floor(random() * 9)));
      const rateHundredths = Math.floor(random() * 10_001);
      const rate = (rateHundredths / 100).toFixed(2);
      const result = percentOf(cents, rate);
      // The exact product, in units of 1/10000 cent, is cents × rate-in-hundredths-of-a-percent.
      const exactTimes10000 = BigInt(cents) * BigInt(rateHundredths);
      const error = BigInt(result) * 10_000n - exactTimes10000;
      const absError = error < 0n ? -error : error;
      expect(absError <= 5_000n).toBe(true);
      if (absError === 5_000n) {
        // A tie: the result must be the one farther from zero.
        expect(Math.abs(result) * 10_000 >= Math.abs(Number(exactTimes10000))).toBe(true);
      }
    }
  });

  it("rejects rates that are not decimal numbers", () => {
    expect(() => percentOf(100, "abc")).toThrow(/not a decimal number/);
    expect(() => percentOf(100, Number.NaN)).toThrow(MoneyError);
    expect(() => percentOf(100, Number.POSITIVE_INFINITY)).toThrow(MoneyError);
    expect(() => percentOf(1.5, 10)).toThrow(/whole number of cents/);
  });
});
