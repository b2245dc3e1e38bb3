/**
 * The native provider's package schema (schema/pulumi-schema.json): generated from the zod
 * schemas, field tables and TSDoc of the sources, committed, and valid for Pulumi. It must be
 * regenerated (`npm run schema`) whenever a resource's inputs, outputs or docs change.
 *
 * It is validated against Pulumi's own metaschema (`pkg/codegen/schema/pulumi.json` in
 * pulumi/pulumi): the copy vendored in ./fixtures (its README names the tag and commit), or the
 * one `PULUMI_METASCHEMA` names (a newer copy).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import * as dataSources from "../../src/functions";
import { functionToken, PACKAGE_SCHEMA_FILE, resourceToken } from "../../src/native/package";
import { generatePackageSchema } from "../../src/native/schema";
import { integerOutputs } from "../../src/native/schema/integers";
import { FUNCTION_ARGS, KIND_SOURCES } from "../../src/native/schema/sources";
import type { PropertySpec } from "../../src/native/schema/spec";
import { RESOURCE_KINDS } from "../../src/resources/kinds";
import { ROOT } from "../support/programs";
import { schemaProblems } from "../support/pulumi-schema-checks";
import { descriptionProblems, internalNames } from "../support/schema-descriptions";

type Json = Record<string, unknown>;
interface Property extends Json {
  description?: string;
  secret?: boolean;
  replaceOnChanges?: boolean;
}
interface Shipped {
  name: string;
  config: { variables: Record<string, Property> };
  provider: { inputProperties: Record<string, Property> };
  resources: Record<
    string,
    {
      description?: string;
      properties: Record<string, Property>;
      inputProperties: Record<string, Property>;
      requiredInputs?: string[];
    }
  >;
  functions: Record<string, { inputs?: { properties: Record<string, Property> } }>;
  types: Record<string, Json>;
}

const shippedText = readFileSync(join(ROOT, PACKAGE_SCHEMA_FILE), "utf8");
const shipped = JSON.parse(shippedText) as Shipped;
const kinds = RESOURCE_KINDS;

describe("schema/pulumi-schema.json", () => {
  it("is what the sources generate (run `npm run schema` after changing a resource, a data source or their TSDoc)", () => {
    expect(shipped).toEqual(JSON.parse(JSON.stringify(generatePackageSchema(ROOT))));
  }, 120_000);

  it("passes the structural checks: tokens, every $ref resolves, required names are properties, well-formed types", () => {
    expect(schemaProblems(shipped as unknown as Json)).toEqual([]);
  });

  it("the structural checks refuse a dangling $ref, a required name that is no property and a malformed type", () => {
    const broken = JSON.parse(shippedText) as Shipped;
    const server = broken.resources[resourceToken("Server")];
    if (server === undefined) throw new Error("no Server in the schema");
    server.inputProperties["timeouts"] = { $ref: "#/types/cloudinfra:index:Nothing" };
    server.requiredInputs = [...(server.requiredInputs ?? []), "colour"];
    server.properties["ip"] = { type: "array" };
    expect(schemaProblems(broken as unknown as Json)).toEqual([
      `${resourceToken("Server")}.properties.ip: an array without items`,
      `${resourceToken("Server")}.inputProperties.timeouts: $ref #/types/cloudinfra:index:Nothing resolves to nothing`,
      `${resourceToken("Server")}.inputProperties: requiredInputs names colour, which is no property`,
    ]);
  });

  it("declares the seven resources, every data source of src/functions, and the provider's configuration", () => {
    expect(Object.keys(shipped.resources).sort()).toEqual(kinds.map(resourceToken).sort());
    const functions = Object.keys(dataSources)
      .filter((name) => /^get[A-Z]/.test(name) && !name.endsWith("Output"))
      .map(functionToken);
    expect(Object.keys(shipped.functions).sort()).toEqual(functions.sort());
    expect(Object.keys(shipped.config.variables).sort()).toEqual(["apiKey", "caCert", "endpoint"]);
    expect(shipped.provider.inputProperties).toEqual(shipped.config.variables);
  });

  it("marks the API key and the generated secrets secret, and nothing else", () => {
    const secrets = [
      ...Object.entries(shipped.config.variables).map(
        ([name, p]) => [`config.${name}`, p] as const,
      ),
      ...Object.entries(shipped.resources).flatMap(([token, r]) =>
        Object.entries(r.properties).map(([name, p]) => [`${token}.${name}`, p] as const),
      ),
    ]
      .filter(([, p]) => p.secret === true)
      .map(([where]) => where);
    expect(secrets.sort()).toEqual(
      [
        "config.apiKey",
        `${resourceToken("SshKey")}.privateKey`,
        `${resourceToken("User")}.apiKey`,
      ].sort(),
    );
  });

  it("marks exactly the inputs whose change replaces the object (the field tables of diff) replaceOnChanges", () => {
    for (const kind of kinds) {
      const inputs = shipped.resources[resourceToken(kind)]?.inputProperties ?? {};
      const marked = Object.keys(inputs).filter((name) => inputs[name]?.replaceOnChanges === true);
      const replacing = Object.entries(KIND_SOURCES[kind].fields)
        .filter(([, rule]) => rule.replaceOnChange === true)
        .map(([name]) => name);
      expect({ kind, marked: marked.sort() }).toEqual({ kind, marked: replacing.sort() });
    }
    expect(
      shipped.resources[resourceToken("Server")]?.inputProperties["planId"]?.replaceOnChanges,
    ).toBe(true);
  });

  it("describes every resource and every input with the TSDoc of its Args interface", () => {
    for (const [token, resource] of Object.entries(shipped.resources)) {
      expect(resource.description, token).toMatch(/\w/);
      for (const [name, input] of Object.entries(resource.inputProperties)) {
        expect(input.description, `${token}.${name}`).toMatch(/\w/);
      }
    }
    const source = readFileSync(join(ROOT, "src/resources/tag/index.ts"), "utf8");
    const color = shipped.resources[resourceToken("Tag")]?.inputProperties["color"]?.description;
    expect(color).toBeDefined();
    expect(source).toContain(String(color?.split("\n")[0]));
  });

  it("types each data source's arguments from the zod schema it parses them with", () => {
    for (const [name, schema] of Object.entries(FUNCTION_ARGS)) {
      const inputs = shipped.functions[functionToken(name)]?.inputs?.properties ?? {};
      const shape = (schema as unknown as { shape?: Json; def?: { in?: { shape?: Json } } }).shape;
      if (shape !== undefined)
        expect(Object.keys(inputs).sort()).toEqual(Object.keys(shape).sort());
      else expect(Object.keys(inputs).length).toBeGreaterThan(0);
    }
  });

  it("types as `integer` every number zod says is one (`.int()`): ids, counts, codes, ports; only decimals stay `number`", () => {
    const numbers: Record<string, string[]> = { integer: [], number: [] };
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== "object" || node === null) return;
      const type = (node as Json)["type"];
      if (type === "integer" || type === "number") numbers[type]?.push(where);
      for (const [k, v] of Object.entries(node)) walk(v, `${where}.${k}`);
    };
    walk(shipped, "");
    // The decimals: prices and VAT rates are `z.number()` in the wire schemas and arguments.
    expect(numbers["number"]?.sort()).toEqual(
      [
        `.functions.${functionToken("getCountry")}.outputs.properties.vat`,
        `.functions.${functionToken("getPlan")}.inputs.properties.maxPrice`,
        `.functions.${functionToken("getPlan")}.outputs.properties.price`,
        `.functions.${functionToken("getPlans")}.inputs.properties.maxPrice`,
        ".types.cloudinfra:index:CountryInfo.properties.vat",
        ".types.cloudinfra:index:PlanInfo.properties.price",
      ].sort(),
    );
    const server = shipped.resources[resourceToken("Server")];
    expect(server?.properties["serverId"]).toMatchObject({ type: "integer" });
    expect(server?.properties["sshKeyIds"]).toMatchObject({ items: { type: "integer" } });
    expect(server?.inputProperties["planId"]).toMatchObject({
      oneOf: [{ type: "integer" }, { type: "string" }],
    });
    expect(numbers["integer"]?.length).toBeGreaterThan(40);
  });

  it("the generator refuses an output number no zod schema speaks for, naming it", () => {
    expect(() =>
      integerOutputs("Tag", { tagId: { type: "number" }, weight: { type: "number" } }),
    ).toThrow(
      "schema: Tag.weight is a number with no zod schema saying whether it is an integer: add its source to OUTPUT_SOURCES (src/native/schema/sources.ts)",
    );
    const properties: Record<string, PropertySpec> = {
      ids: { type: "array", items: { type: "number" } },
    };
    integerOutputs("getPlans", properties);
    expect(properties["ids"]).toEqual({ type: "array", items: { type: "integer" } });
  });

  const metaschema =
    process.env["PULUMI_METASCHEMA"] || join(ROOT, "test/native/fixtures/pulumi-metaschema.json");
  it("is valid against Pulumi's package metaschema (vendored, or PULUMI_METASCHEMA)", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(metaschema, "utf8")) as Json);
    expect(validate(shipped), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The metaschema itself must be able to fail: a property of a type Pulumi does not know.
    const broken = JSON.parse(shippedText) as Shipped;
    const tag = broken.resources[resourceToken("Tag")];
    if (tag?.inputProperties["name"] !== undefined) tag.inputProperties["name"]["type"] = "text";
    expect(validate(broken)).toBe(false);
  });
});

describe("the schema's descriptions", () => {
  const internal = internalNames(ROOT);

  it("name no internal of the sources and carry no TSDoc tag: only what a user of any language can reach", () => {
    expect(internal.has("SharedLists"), "the check knows the sources' internals").toBe(true);
    expect(descriptionProblems(shipped as unknown as Json, internal)).toEqual([]);
  }, 60_000);

  it("the check refuses an internal class, a TSDoc link, and accepts the schema's own names", () => {
    const broken = JSON.parse(shippedText) as Shipped;
    const tag = broken.resources[resourceToken("Tag")];
    if (tag === undefined) throw new Error("no Tag in the schema");
    tag.description = "Read once per stack (see `SharedLists.read`); `Server` and `serverIds` too.";
    const color = tag.inputProperties["color"];
    if (color !== undefined) color.description = "A colour, see {@link TagArgs.color}.";
    expect(descriptionProblems(broken as unknown as Json, internal).sort()).toEqual([
      `resources.${resourceToken("Tag")}.inputProperties.color: a TSDoc tag {@link TagArgs.color}`,
      `resources.${resourceToken("Tag")}: \`SharedLists.read\` names SharedLists, an internal of the sources`,
    ]);
  });
});
