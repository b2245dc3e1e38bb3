/*
 * The bounds of the one reference check (src/lib/references.ts) at their edges, and what it
 * leaves to the schema (issue 27: mutation testing).
 */
import { describe, expect, it } from "vitest";
import {
  LISTED_TARGETS_MAX,
  referenceProblems,
  SUGGESTION_TARGETS_MAX,
} from "../../src/lib/references";

const list = { section: "servers", list: true, noTargets: "servers declares no entries" };
const names = (count: number) => Array.from({ length: count }, (_, i) => `host-${i}`);

describe("referenceProblems", () => {
  it("lists the section's names up to 20, and counts them from 21", () => {
    expect(LISTED_TARGETS_MAX).toBe(20);
    expect(referenceProblems(["database"], names(20), list)).toEqual([
      {
        index: 0,
        message: `no entry "database" in servers; servers has: ${names(20).join(", ")}`,
      },
    ]);
    expect(referenceProblems(["database"], names(21), list)).toEqual([
      { index: 0, message: 'no entry "database" in servers; servers has 21 entries' },
    ]);
  });

  it("looks for the nearest name among up to 100, and among more says none is named so", () => {
    expect(SUGGESTION_TARGETS_MAX).toBe(100);
    expect(referenceProblems(["host-7x"], names(100), list)).toEqual([
      {
        index: 0,
        message: 'no entry "host-7x" in servers; did you mean "host-7" or "host-70" or "host-71"?',
      },
    ]);
    expect(referenceProblems(["host-7x"], names(101), list)).toEqual([
      {
        index: 0,
        message: 'no entry "host-7x" in servers; servers has 101 entries, none named so',
      },
    ]);
  });

  it("says a dangling name listed twice is both, at each place", () => {
    expect(referenceProblems(["database", "database"], ["webserver"], list)).toEqual([
      { index: 0, message: 'no entry "database" in servers; servers has: webserver' },
      { index: 1, message: '"database" is listed twice' },
      { index: 1, message: 'no entry "database" in servers; servers has: webserver' },
    ]);
  });

  it("leaves a value of the wrong shape to the schema", () => {
    expect(referenceProblems("web", ["web-1"], list)).toEqual([]);
    expect(referenceProblems(["web"], ["web-1"], { ...list, list: false })).toEqual([]);
  });

  it("reads the targets of each list passed, not of the first one", () => {
    const first = ["database"];
    expect(referenceProblems(["database"], first, list)).toEqual([]);
    expect(referenceProblems(["database"], ["webserver"], list)).toEqual([
      { index: 0, message: 'no entry "database" in servers; servers has: webserver' },
    ]);
  });
});
