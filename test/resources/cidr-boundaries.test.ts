/*
 * normaliseCidr's boundaries and refusals, each pinned to the exact stored text or message
 * (issue 27: mutation testing found explicit /32 and /128, 255.255.255.255, IPv6 input checking
 * and the RFC 5952 form unpinned; a change in the canonical form shows as a diff on every run).
 */
import { describe, expect, it } from "vitest";
import { normaliseCidr } from "../../src/resources/security-group/cidr";

const BAD = "expected a CIDR block, for example 10.0.0.0/8 or 2001:db8::/32";

describe("normaliseCidr stores one spelling", () => {
  it.each([
    ["10.0.0.1/32", "10.0.0.1/32"],
    ["10.0.0.1", "10.0.0.1/32"],
    ["255.255.255.255", "255.255.255.255/32"],
    ["255.255.255.255/32", "255.255.255.255/32"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["10.0.0.0/08", "10.0.0.0/8"],
    [" 10.0.0.0 / 8 ", "10.0.0.0/8"],
    ["::1/128", "::1/128"],
    ["::", "::/128"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8/128"],
    ["1:2:3:4:5:6:7:8/128", "1:2:3:4:5:6:7:8/128"],
    ["ABCD:EF01:2345:6789:ABCD:EF01:2345:6789", "abcd:ef01:2345:6789:abcd:ef01:2345:6789/128"],
    ["0001:0002:0003:0004:0005:0006:0007:0008", "1:2:3:4:5:6:7:8/128"],
    ["::ffff:10.0.0.1", "::ffff:a00:1/128"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0/128"],
    ["::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8/128"],
  ])("%j is stored as %j", (input, cidr) => {
    expect(normaliseCidr(input)).toEqual({ ok: true, cidr });
  });

  it.each([
    // The longest run of zero groups is the one written "::".
    ["1:0:0:4:0:0:0:8", "1:0:0:4::8/128"],
    ["0:0:1:0:0:0:0:1", "0:0:1::1/128"],
    // Of two equally long runs, the first.
    ["1:0:0:2:0:0:3:4", "1::2:0:0:3:4/128"],
    // A run at either end.
    ["a:b:c:d:e:f:0:0", "a:b:c:d:e:f::/128"],
    ["0:0:a:b:c:d:e:f", "::a:b:c:d:e:f/128"],
    ["1:0:0:2:0:0:0:0", "1:0:0:2::/128"],
    // A single zero group is never "::".
    ["1:0:2:0:3:0:4:5", "1:0:2:0:3:0:4:5/128"],
  ])("RFC 5952: %j is written %j", (input, cidr) => {
    expect(normaliseCidr(input)).toEqual({ ok: true, cidr });
  });
});

describe("normaliseCidr refuses, saying why", () => {
  it.each([
    ["", BAD],
    ["1.2.3", `${BAD}: expected four numbers separated by dots in "1.2.3"`],
    ["1.2.3.4.5", `${BAD}: expected four numbers separated by dots in "1.2.3.4.5"`],
    ["256.1.1.1", `${BAD}: "256" is not a number from 0 to 255`],
    ["1.2.3.1000", `${BAD}: "1000" is not a number from 0 to 255`],
    ["1.2.3.x", `${BAD}: "x" is not a number from 0 to 255`],
    ["01.2.3.4", `${BAD}: "01" has a leading zero; write it without`],
    // Only digits make a number: no sign, exponent or letter around them.
    ["1.2.3.+1", `${BAD}: "+1" is not a number from 0 to 255`],
    ["1.2.3.x1", `${BAD}: "x1" is not a number from 0 to 255`],
    ["1.2.3.1e2", `${BAD}: "1e2" is not a number from 0 to 255`],
    ["1.2.3.1x", `${BAD}: "1x" is not a number from 0 to 255`],
    ["/8", `${BAD}: expected four numbers separated by dots in ""`],
    ["g::1", `${BAD}: "g" is not a group of 1-4 hex digits`],
    ["12345::1", `${BAD}: "12345" is not a group of 1-4 hex digits`],
    ["1::12345", `${BAD}: "12345" is not a group of 1-4 hex digits`],
    ["1:2:3:4:5:6:7:8:9", `${BAD}: expected eight groups (or "::") in "1:2:3:4:5:6:7:8:9"`],
    ["1:2:3", `${BAD}: expected eight groups (or "::") in "1:2:3"`],
    ["1:2:3:4::5:6:7:8", `${BAD}: too many groups in "1:2:3:4::5:6:7:8"`],
    ["1::2::3", `${BAD}: "::" may appear only once in "1::2::3"`],
    ["::ffff:10.0.0.256", `${BAD}: "256" is not a number from 0 to 255`],
    ["::ffff:1.2.3", `${BAD}: expected four numbers separated by dots in "1.2.3"`],
    [
      "1:2:3:4:5:6:7:10.0.0.1",
      `${BAD}: expected eight groups (or "::") in "1:2:3:4:5:6:7:10.0.0.1"`,
    ],
    ["10.0.0.0/33", `expected a prefix length from 0 to 32 after "/", got "33"`],
    ["10.0.0.0/", `expected a prefix length from 0 to 32 after "/", got ""`],
    ["10.0.0.0/x", `expected a prefix length from 0 to 32 after "/", got "x"`],
    ["10.0.0.0/1000", `expected a prefix length from 0 to 32 after "/", got "1000"`],
    ["10.0.0.0/+8", `expected a prefix length from 0 to 32 after "/", got "+8"`],
    ["10.0.0.0/x8", `expected a prefix length from 0 to 32 after "/", got "x8"`],
    ["10.0.0.0/8e0", `expected a prefix length from 0 to 32 after "/", got "8e0"`],
    ["10.0.0.0/8x", `expected a prefix length from 0 to 32 after "/", got "8x"`],
    ["::/129", `expected a prefix length from 0 to 128 after "/", got "129"`],
    [
      "10.0.0.1/24",
      `"10.0.0.1/24" has host bits set: the network is 10.0.0.0/24 (write that, or 10.0.0.1/32 for the single address)`,
    ],
    [
      "2001:db8::1/32",
      `"2001:db8::1/32" has host bits set: the network is 2001:db8::/32 (write that, or 2001:db8::1/128 for the single address)`,
    ],
    [
      "1::/0",
      `"1::/0" has host bits set: the network is ::/0 (write that, or 1::/128 for the single address)`,
    ],
  ])("%j: %s", (input, message) => {
    expect(normaliseCidr(input)).toEqual({ ok: false, message });
  });
});
