/**
 * The JSON Schema the package ships for editors (schema/manifest.schema.json): generated from the
 * loader's zod schema and committed, so it must be regenerated (`npm run schema`) whenever that
 * changes; it accepts the example manifest and refuses what the loader refuses.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { MANIFEST_SCHEMA_FILE, manifestJsonSchema } from "../../src/manifest/json-schema";
import { ROOT } from "../support/programs";

const shipped = JSON.parse(readFileSync(join(ROOT, MANIFEST_SCHEMA_FILE), "utf8")) as Record<
  string,
  unknown
>;
const example = parse(readFileSync(join(ROOT, "examples", "gitops", "infra.yaml"), "utf8")) as {
  servers: Record<string, Record<string, unknown>>;
  tags: Record<string, Record<string, unknown>>;
};
// A validator built from the shipped JSON alone, as an editor builds one.
const validator = z.fromJSONSchema(shipped as Parameters<typeof z.fromJSONSchema>[0]);

describe("schema/manifest.schema.json", () => {
  it("is what the zod schema generates (run `npm run schema` after changing it)", () => {
    expect(shipped).toEqual(manifestJsonSchema());
  });

  it("is shipped in the package and reachable by name", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      files: string[];
      exports: Record<string, unknown>;
    };
    expect(pkg.files).toContain(MANIFEST_SCHEMA_FILE.split("/")[0]);
    expect(pkg.exports["./manifest.schema.json"]).toBe(`./${MANIFEST_SCHEMA_FILE}`);
    expect(require.resolve("pulumi-cloudinfra/manifest.schema.json")).toBe(
      join(ROOT, MANIFEST_SCHEMA_FILE),
    );
  });

  it("is draft 7, which YAML language servers read, and names the example's editor directive", () => {
    expect(shipped["$schema"]).toBe("http://json-schema.org/draft-07/schema#");
    const firstLine = readFileSync(join(ROOT, "examples", "gitops", "infra.yaml"), "utf8").split(
      "\n",
    )[0];
    expect(firstLine).toBe(
      `# yaml-language-server: $schema=./node_modules/pulumi-cloudinfra/${MANIFEST_SCHEMA_FILE}`,
    );
  });

  it("accepts the example manifest", () => {
    expect(validator.safeParse(example).success).toBe(true);
  });

  it("refuses an unknown field, a bad colour, a bad entry name and a missing plan", () => {
    const withField = structuredClone(example);
    (withField.servers["web-1"] as Record<string, unknown>)["plann"] = "VPS S";
    const withColour = structuredClone(example);
    (withColour.tags["web"] as Record<string, unknown>)["color"] = "#abc";
    const withKey = structuredClone(example);
    withKey.servers["web.3"] = { plan: "VPS S", image: "debian-13" };
    const withoutPlan = structuredClone(example);
    delete (withoutPlan.servers["web-2"] as Record<string, unknown>)["plan"];
    for (const manifest of [withField, withColour, withKey, withoutPlan]) {
      expect(validator.safeParse(manifest).success).toBe(false);
    }
  });
});
