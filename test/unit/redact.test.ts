import { describe, expect, it } from "vitest";
import { redact, scrub } from "../../src/api/redact";

/** What a log line or an error body shows instead of a secret. */
const REDACTED = "[REDACTED]";

describe("redact", () => {
  it.each([
    "api_key",
    "apiKey",
    "API_KEY",
    "Api-Key",
    "private_key",
    "privateKey",
    "PRIVATE_KEY",
    "password",
    "Password",
    "authorization",
    "Authorization",
  ])("hides the value of %s", (key) => {
    expect(redact({ [key]: "s3cret", other: 1 })).toEqual({ [key]: REDACTED, other: 1 });
  });

  it("keeps look-alike fields that are not secret", () => {
    const input = { public_key: "ssh-ed25519 AAAA", key: "k", api_key_id: 3, passwordless: true };
    expect(redact(input)).toEqual(input);
  });

  it("walks nested objects and arrays, hiding secrets of any type", () => {
    const input = {
      users: [
        { name: "a", api_key: "k1" },
        { name: "b", credentials: { password: { v: 1 } } },
      ],
    };
    expect(redact(input)).toEqual({
      users: [
        { name: "a", api_key: REDACTED },
        { name: "b", credentials: { password: REDACTED } },
      ],
    });
  });

  it("returns a copy and leaves the input untouched", () => {
    const input = { nested: { api_key: "k" } };
    const out = redact(input);
    expect(input.nested.api_key).toBe("k");
    expect(out.nested).not.toBe(input.nested);
  });

  it("cuts cycles but copies shared references", () => {
    const shared = { v: 1 };
    const input: Record<string, unknown> = { a: shared, b: shared };
    input["self"] = input;
    expect(redact(input)).toEqual({ a: { v: 1 }, b: { v: 1 }, self: "[Circular]" });
  });

  it("passes primitives through and summarises bytes", () => {
    expect(redact("text")).toBe("text");
    expect(redact(null)).toBeNull();
    expect(redact(undefined)).toBeUndefined();
    expect(redact({ data: new Uint8Array(3) })).toEqual({ data: "[3 bytes]" });
  });
});

describe("scrub", () => {
  it("replaces every occurrence of every secret", () => {
    expect(scrub("key=abcd1234 again abcd1234 and zzzz9999", ["abcd1234", "zzzz9999"])).toBe(
      `key=${REDACTED} again ${REDACTED} and ${REDACTED}`,
    );
  });

  it("ignores empty and very short secrets instead of mangling the text", () => {
    expect(scrub("a b c", ["", "a"])).toBe("a b c");
  });

  it("treats secrets literally, not as patterns", () => {
    expect(scrub("x.+*?y and xzzzy", ["x.+*?y"])).toBe(`${REDACTED} and xzzzy`);
  });
});
