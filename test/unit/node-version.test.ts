import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");

describe("runtime", () => {
  it("runs the tests on a supported Node (>= 22), whatever the system Node is", () => {
    const major = Number(process.versions.node.split(".")[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it("runs on the Node that the `node` dev dependency provisions", () => {
    const provisioned = execFileSync(join(root, "node_modules", ".bin", "node"), ["--version"], {
      encoding: "utf8",
    }).trim();
    expect(provisioned).toBe(`v${process.versions.node}`);
  });

  it("declares the same minimum Node in package.json engines", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toMatch(/^>=22\./);
  });
});
