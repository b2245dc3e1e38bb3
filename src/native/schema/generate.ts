/**
 * Generates the native provider's Pulumi package schema from the sources themselves: input types
 * from the zod schemas `check` validates with (./sources.ts), replacements from the field tables
 * `diff` decides with, output and result types and every description from the TypeScript
 * declarations and their TSDoc (./typescript.ts), with integers from the zod schemas their values
 * come from (./integers.ts), secret outputs from each kind's `secrets`
 * (the list the dynamic classes and the plugin use), the configuration from `SETTINGS` (src/config.ts).
 * `npm run schema` writes it to `schema/pulumi-schema.json`; test/native/schema.test.ts fails
 * while that file differs from what this generates.
 */
import { z } from "zod";
import { SETTINGS } from "../../config";
import { generatedSecrets, KINDS, RESOURCE_KINDS, type ResourceKind } from "../../resources/kinds";
import { functionToken, PACKAGE_NAME, resourceToken, typeToken } from "../package";
import { integerOutputs } from "./integers";
import { FUNCTION_ARGS, KIND_SOURCES } from "./sources";
import type { FunctionSpec, PackageSpec, PropertySpec, ResourceSpec } from "./spec";
import { objectFromJsonSchema, TypeRegistry } from "./types";
import { SourceReader } from "./typescript";

/** `src/resources/server/index.ts`: where a kind's class lives. */
function classFile(kind: ResourceKind): string {
  return `src/resources/${KINDS[kind].folder}/index.ts`;
}

function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

function resourceSpec(
  kind: ResourceKind,
  reader: SourceReader,
  registry: TypeRegistry,
): ResourceSpec {
  const file = classFile(kind);
  const source = KIND_SOURCES[kind];
  const inputsJson = inputJsonSchema(source.inputs);
  const inputs = objectFromJsonSchema(
    inputsJson,
    kind,
    registry,
    reader.interfaceDocs(file, `${kind}Args`),
  );
  for (const [name, rule] of Object.entries(source.fields)) {
    const property = inputs.properties[name];
    if (property === undefined)
      throw new Error(`schema: ${kind}: field table names ${name}, which is no input`);
    if (rule.replaceOnChange === true) {
      property.replaceOnChanges = true;
      property.willReplaceOnChanges = true;
    }
  }
  const info = reader.classInfo(file, kind);
  const secrets = generatedSecrets(kind);
  const properties: Record<string, PropertySpec> = {};
  const required: string[] = [];
  for (const [name, output] of info.outputs) {
    const mapped = reader.typeOf(output.type, kind, name, registry);
    const spec: PropertySpec = { ...mapped.type };
    if (output.description !== undefined) spec.description = output.description;
    if (secrets.includes(name)) spec.secret = true;
    properties[name] = spec;
    if (!mapped.optional) required.push(name);
  }
  integerOutputs(kind, properties, inputsJson);
  for (const name of secrets) {
    if (!(name in properties))
      throw new Error(`schema: ${kind}: secret output ${name} is not declared`);
  }
  const spec: ResourceSpec = { properties, inputProperties: inputs.properties };
  if (info.description !== undefined) spec.description = info.description;
  if (required.length > 0) spec.required = required;
  // `check` requires a name, but autonaming gives one before it runs: the program may leave it out.
  const requiredInputs = (inputs.required ?? []).filter(
    (name) => !(name === "name" && KINDS[kind].named),
  );
  if (requiredInputs.length > 0) spec.requiredInputs = requiredInputs;
  return spec;
}

function functionSpecs(reader: SourceReader, registry: TypeRegistry): Record<string, FunctionSpec> {
  const out: Record<string, FunctionSpec> = {};
  for (const fn of reader.functions()) {
    const owner = fn.name.charAt(0).toUpperCase() + fn.name.slice(1);
    const outputs = reader.objectOf(fn.result, `${owner}Result`, registry);
    integerOutputs(fn.name, outputs.properties);
    const spec: FunctionSpec = { outputs: { properties: outputs.properties } };
    if (outputs.required !== undefined) spec.outputs.required = outputs.required;
    if (fn.description !== undefined) spec.description = fn.description;
    if (fn.args !== undefined) {
      const schema = FUNCTION_ARGS[fn.name];
      if (schema === undefined) {
        throw new Error(`schema: ${fn.name} takes arguments: add its zod schema to FUNCTION_ARGS`);
      }
      const inputs = objectFromJsonSchema(
        inputJsonSchema(schema),
        `${owner}Args`,
        registry,
        fn.args,
      );
      spec.inputs = { properties: inputs.properties };
      if (inputs.required !== undefined) spec.inputs.required = inputs.required;
    }
    out[functionToken(fn.name)] = spec;
  }
  return out;
}

function configuration(reader: SourceReader): Record<string, PropertySpec> {
  const docs = reader.interfaceDocs("src/config.ts", "Settings");
  const out: Record<string, PropertySpec> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const spec: PropertySpec = { type: "string", defaultInfo: { environment: [setting.envVar] } };
    const description = docs.properties[name]?.description;
    if (description !== undefined) spec.description = description;
    if (name === "apiKey") spec.secret = true;
    out[name] = spec;
  }
  return out;
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** The package schema, generated from the sources under `root` (the repository root). */
export function generatePackageSchema(root: string): PackageSpec {
  const reader = new SourceReader(root);
  const registry = new TypeRegistry();
  const resources: Record<string, ResourceSpec> = {};
  for (const kind of RESOURCE_KINDS) {
    resources[resourceToken(kind)] = resourceSpec(kind, reader, registry);
  }
  const functions = functionSpecs(reader, registry);
  for (const name of registry.fromDeclarations) {
    integerOutputs(name, registry.types.get(name)?.properties ?? {});
  }
  const variables = configuration(reader);
  return {
    name: PACKAGE_NAME,
    displayName: "CloudInfra",
    description:
      "Servers, tags, IAM roles and users, security groups and SSH keys of the CloudInfra hosting API, with its catalogues as data sources.",
    keywords: ["pulumi", "cloudinfra", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    config: { variables },
    provider: {
      description: "The CloudInfra provider: one API endpoint and key (one account) per instance.",
      properties: {},
      inputProperties: variables,
    },
    resources: sorted(resources),
    functions: sorted(functions),
    types: sorted(
      Object.fromEntries([...registry.types].map(([name, spec]) => [typeToken(name), spec])),
    ),
  };
}

/** The schema file's text: two-space JSON, as Biome formats the repository's JSON. */
export function formatPackageSchema(spec: PackageSpec): string {
  return `${JSON.stringify(spec, null, 2)}\n`;
}
