/* What the name rules' tests did not pin (issue 27: mutation testing of src/lib/names.ts). */
import { describe, expect, it } from "vitest";
import { didYouMean, nameKey, sameName } from "../../src/lib/names";

describe("didYouMean", () => {
  it("ignores the blanks around a typo", () => {
    expect(didYouMean("   servers:raed   ", ["servers:read", "keys:read"])).toBe(
      '; did you mean "servers:read"?',
    );
  });

  it("suggests at most three names, nearest first", () => {
    expect(didYouMean("ab", ["ax", "bb", "ac", "ad", "zzzz"])).toBe(
      '; did you mean "ac" or "ad" or "ax"?',
    );
  });
});

describe("sameName", () => {
  it("folds names to lower case, as the service compares them", () => {
    expect(sameName(" Web ", "web")).toBe(true);
    expect(sameName("STRASSE", "straße")).toBe(false);
  });
});

describe("nameKey", () => {
  it("keeps one space for each run of blanks inside a name: `web 1` and `web1` are two names", () => {
    expect(nameKey("  Web \t\u00a0 1  ")).toBe("web 1");
    expect(sameName("web 1", "web1")).toBe(false);
  });
});
