/**
 * The native provider's package: its name, the type tokens of its resources and functions, and
 * the schema file it ships. The plugin (`GetSchema`), the TypeScript flavour (`./sdk`) and the
 * schema generator all take the tokens from here, so they cannot disagree.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ResourceKind } from "../resources/kinds";

/** The Pulumi package name: `cloudinfra`, as in `cloudinfra:index:Server` and `cloudinfra:apiKey`. */
export const PACKAGE_NAME = "cloudinfra";

/** Where the package ships its Pulumi package schema, relative to its root (`files` in package.json). */
export const PACKAGE_SCHEMA_FILE = "schema/pulumi-schema.json";

/** `cloudinfra:index:Server`: the type token of a resource kind. */
export function resourceToken(kind: ResourceKind): string {
  return `${PACKAGE_NAME}:index:${kind}`;
}

/** `cloudinfra:index:getPlan`: the token of a data source served as a function. */
export function functionToken(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

/** `cloudinfra:index:ServerTimeouts`: the token of an object type of the schema. */
export function typeToken(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

/** The shipped schema's text, read from the installed package (what `GetSchema` answers). */
export function readPackageSchema(): string {
  return readFileSync(join(__dirname, "..", "..", PACKAGE_SCHEMA_FILE), "utf8");
}

/** The resources of the shipped package schema: what each declares as outputs and secrets. */
export type SchemaResources = Readonly<
  Record<string, { properties: Record<string, { secret?: boolean }> }>
>;

/** Reads the resources of the shipped package schema (once per module that needs them). */
export function schemaResources(): SchemaResources {
  return (JSON.parse(readPackageSchema()) as { resources: SchemaResources }).resources;
}

/**
 * The outputs of `kind` in the shipped schema, generated from its dynamic class's declared
 * outputs: what the classes of both flavours register, so neither lists them again.
 */
export function schemaOutputs(
  resources: SchemaResources,
  kind: ResourceKind,
): { names: string[]; secrets: string[] } {
  const spec = resources[resourceToken(kind)];
  if (spec === undefined) throw new Error(`cloudinfra: the package schema has no ${kind}`);
  const names = Object.keys(spec.properties);
  return { names, secrets: names.filter((name) => spec.properties[name]?.secret === true) };
}
