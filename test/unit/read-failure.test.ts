import { describe, expect, it } from "vitest";
import { whyUnreadable } from "../../src/lib/read-failure";

describe("whyUnreadable", () => {
  it.each([
    ["ENOENT", "no such file"],
    ["EISDIR", "a folder, not a regular file"],
    ["EACCES", "permission denied"],
    ["EPERM", "permission denied"],
    ["EMFILE", "EMFILE"],
  ])("says %s as %j", (code, why) => {
    expect(whyUnreadable(Object.assign(new Error(`${code}: oops`), { code }))).toBe(why);
  });

  it("falls back to the message of an error without a code, and to the text of anything else", () => {
    expect(whyUnreadable(new Error("disk on fire"))).toBe("disk on fire");
    expect(whyUnreadable({ code: 5 })).toBe("[object Object]");
    expect(whyUnreadable("gone")).toBe("gone");
    expect(whyUnreadable(null)).toBe("null");
  });
});
