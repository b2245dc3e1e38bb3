import { describe, expect, it } from "vitest";
import { referenceProblems } from "../../src/lib/references";

describe("referenceProblems (the manifest's and the seed file's one reference check)", () => {
  const list = { section: "servers", list: true, noTargets: "servers declares no entries" };

  it("names each dangling or repeated name of a list by its position, with the nearest names", () => {
    expect(referenceProblems(["web-1", "web-3", "web-1", 7], ["web-1", "web-2"], list)).toEqual([
      { index: 1, message: 'no entry "web-3" in servers; did you mean "web-1" or "web-2"?' },
      { index: 2, message: '"web-1" is listed twice' },
    ]);
  });

  it("says what the section holds when nothing is near, and when it declares nothing", () => {
    expect(referenceProblems(["database"], ["web-1"], list)).toEqual([
      { index: 0, message: 'no entry "database" in servers; servers has: web-1' },
    ]);
    expect(
      referenceProblems("ops", [], { section: "roles", list: false, noTargets: "none" }),
    ).toEqual([{ index: undefined, message: 'no entry "ops" in roles; none' }]);
  });
});
