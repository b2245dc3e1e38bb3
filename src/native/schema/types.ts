/**
 * The named object types of the schema, and the mapping from the JSON Schema that zod generates
 * (`z.toJSONSchema`, input side) to Pulumi type references. Nested objects become named types
 * called after their owner and property (`Server` + `timeouts` = `ServerTimeouts`; an array
 * property's items are named in the singular: `SecurityGroupRule`); the output side (./typescript.ts)
 * names its anonymous objects by the same rule, so a property's input and output share one type.
 */
import { typeToken } from "../package";
import { ANY_TYPE, type ObjectTypeSpec, type PropertySpec, type TypeSpec, typeRef } from "./spec";

/** Descriptions of an object's properties, and of the objects nested in them (from TSDoc). */
export interface DocTree {
  description?: string;
  properties: Record<string, { description?: string; nested?: DocTree }>;
}

/** The object types collected while mapping, by name; a name defined twice must mean one shape. */
export class TypeRegistry {
  readonly types = new Map<string, ObjectTypeSpec>();
  /** The types first defined from TypeScript declarations (output side), not from zod. */
  readonly fromDeclarations = new Set<string>();

  /** Defines (or reuses) the object type `name`; returns its `$ref`. */
  define(name: string, spec: ObjectTypeSpec): TypeSpec {
    const known = this.types.get(name);
    if (known !== undefined) {
      const a = Object.keys(known.properties).sort().join(",");
      const b = Object.keys(spec.properties).sort().join(",");
      if (a !== b) {
        throw new Error(
          `schema: two shapes are both named ${name}: properties [${a}] and [${b}]; rename one`,
        );
      }
    } else {
      this.types.set(name, spec);
    }
    return { $ref: typeRef(typeToken(name)) };
  }

  has(name: string): boolean {
    return this.types.has(name);
  }
}

/** `SecurityGroup` + `rules` (array items) → `SecurityGroupRule`. */
export function nestedTypeName(owner: string, property: string, arrayItem: boolean): string {
  const pascal = property.charAt(0).toUpperCase() + property.slice(1);
  return owner + (arrayItem && pascal.endsWith("s") ? pascal.slice(0, -1) : pascal);
}

/** A JSON Schema node as `z.toJSONSchema` writes one. */
type JsonSchema = Readonly<Record<string, unknown>>;

const PRIMITIVES = new Set(["boolean", "integer", "number", "string"]);

function primitive(type: string, where: string): TypeSpec {
  if (!PRIMITIVES.has(type)) throw new Error(`schema: ${where}: unsupported JSON type ${type}`);
  return { type: type as "boolean" | "integer" | "number" | "string" };
}

function union(variants: TypeSpec[]): TypeSpec {
  const seen = new Map(variants.map((v) => [JSON.stringify(v), v]));
  const distinct = [...seen.values()];
  if (distinct.length === 1 && distinct[0] !== undefined) return distinct[0];
  return { oneOf: distinct };
}

/**
 * The Pulumi type of a JSON Schema node. `owner` and `property` name a nested object type;
 * `docs` describes its properties.
 */
export function typeFromJsonSchema(
  node: JsonSchema,
  owner: string,
  property: string,
  registry: TypeRegistry,
  docs: DocTree | undefined,
  arrayItem = false,
): TypeSpec {
  const where = `${owner}.${property}`;
  const variants = (node["anyOf"] ?? node["oneOf"]) as JsonSchema[] | undefined;
  if (variants !== undefined) {
    return union(
      variants.map((v) => typeFromJsonSchema(v, owner, property, registry, docs, arrayItem)),
    );
  }
  if (node["$ref"] !== undefined) {
    throw new Error(`schema: ${where}: shared zod schemas ($ref) are not supported; inline it`);
  }
  const type = node["type"];
  if (Array.isArray(type)) return union(type.map((t) => primitive(String(t), where)));
  if (type === undefined) {
    if (typeof node["const"] === "string") return { type: "string" };
    return ANY_TYPE;
  }
  if (type === "array") {
    const items = (node["items"] ?? {}) as JsonSchema;
    return {
      type: "array",
      items: typeFromJsonSchema(items, owner, property, registry, docs, true),
    };
  }
  if (type === "object") {
    const properties = node["properties"] as Record<string, JsonSchema> | undefined;
    if (properties === undefined) {
      const values = node["additionalProperties"];
      return typeof values === "object" && values !== null
        ? {
            type: "object",
            additionalProperties: typeFromJsonSchema(
              values as JsonSchema,
              owner,
              property,
              registry,
              undefined,
            ),
          }
        : { type: "object", additionalProperties: ANY_TYPE };
    }
    const name = nestedTypeName(owner, property, arrayItem);
    return registry.define(name, objectFromJsonSchema(node, name, registry, docs));
  }
  return primitive(String(type), where);
}

/** The properties and required list of an object node, each property described from `docs`. */
export function objectFromJsonSchema(
  node: JsonSchema,
  owner: string,
  registry: TypeRegistry,
  docs: DocTree | undefined,
): ObjectTypeSpec {
  const properties: Record<string, PropertySpec> = {};
  const shape = (node["properties"] ?? {}) as Record<string, JsonSchema>;
  for (const [name, child] of Object.entries(shape)) {
    const doc = docs?.properties[name];
    const spec: PropertySpec = {
      ...typeFromJsonSchema(child, owner, name, registry, doc?.nested),
    };
    if (doc?.description !== undefined) spec.description = doc.description;
    const fallback = child["default"];
    if (
      typeof fallback === "string" ||
      typeof fallback === "number" ||
      typeof fallback === "boolean"
    ) {
      spec.default = fallback;
    }
    properties[name] = spec;
  }
  const required = ((node["required"] ?? []) as string[]).filter((name) => name in properties);
  const out: ObjectTypeSpec = { type: "object", properties };
  if (docs?.description !== undefined) out.description = docs.description;
  if (required.length > 0) out.required = required;
  return out;
}
