import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTE_PERMISSIONS } from "../../src/emulator/service/permissions";

/** `METHOD /path` → permission (null: any valid key), as docs/wire-contract.md's tables state. */
function documentedPermissions(): Record<string, string | null> {
  const doc = readFileSync(join(__dirname, "..", "..", "docs", "wire-contract.md"), "utf8");
  const out: Record<string, string | null> = {};
  for (const line of doc.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const route = /^`(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`?]*)(\?[^`]*)?`$/.exec(cells[1] ?? "");
    const permission = cells[6];
    if (route === null || permission === undefined) continue;
    const path = (route[2] as string).replace(/\{(\w+)\}/g, ":$1");
    out[`${route[1]} ${path}`] = permission === "valid key" ? null : permission;
  }
  return out;
}

describe("the permission table", () => {
  it("says exactly what the wire contract documents, for every endpoint", () => {
    const documented = documentedPermissions();
    expect(Object.keys(documented).length).toBeGreaterThanOrEqual(50);
    expect(ROUTE_PERMISSIONS).toEqual(documented);
  });
});
