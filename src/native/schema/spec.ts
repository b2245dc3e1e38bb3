/**
 * The parts of Pulumi's package schema (`pkg/codegen/schema/pulumi.json` in pulumi/pulumi) that
 * this package's schema uses, as TypeScript types.
 */

/** A type reference: a primitive, an array, a map, a named type (`$ref`) or a union (`oneOf`). */
export interface TypeSpec {
  type?: "boolean" | "integer" | "number" | "string" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}

export interface PropertySpec extends TypeSpec {
  description?: string;
  default?: boolean | number | string;
  defaultInfo?: { environment: string[] };
  secret?: boolean;
  replaceOnChanges?: boolean;
  willReplaceOnChanges?: boolean;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

export interface ResourceSpec {
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
}

export interface FunctionSpec {
  description?: string;
  inputs?: Omit<ObjectTypeSpec, "type">;
  outputs: Omit<ObjectTypeSpec, "type">;
}

export interface PackageSpec {
  name: string;
  displayName: string;
  description: string;
  keywords: string[];
  license: string;
  repository?: string;
  config: { variables: Record<string, PropertySpec>; defaults?: string[] };
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectTypeSpec>;
  language?: Record<string, Record<string, unknown>>;
}

/** The `$ref` of a named type of this schema. */
export function typeRef(token: string): string {
  return `#/types/${token}`;
}

/** The built-in type for a value of any shape. */
export const ANY_TYPE: TypeSpec = { $ref: "pulumi.json#/Any" };
