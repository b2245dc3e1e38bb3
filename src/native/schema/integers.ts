/**
 * Integers in the output side of the schema. Output and result types come from TypeScript
 * declarations (./typescript.ts), where an id and a price are both `number`; whether a number is
 * an integer is said once, by zod's `.int()`, in the schema its value comes from: the kind's own
 * input schema for an output that is also an input, else the wire schema of its
 * {@link OUTPUT_SOURCES} entry. A number with no zod source fails the generator, naming it, so
 * no new output can stay `number` by accident.
 */
import { z } from "zod";
import { OUTPUT_SOURCES, type OutputSource } from "./sources";
import type { PropertySpec, TypeSpec } from "./spec";

type JsonSchema = Readonly<Record<string, unknown>>;

function jsonOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
}

/** The variants of a node (`anyOf`/`oneOf`, as `.nullish()` and unions write them), or itself. */
function variantsOf(node: JsonSchema): JsonSchema[] {
  const variants = (node["anyOf"] ?? node["oneOf"]) as JsonSchema[] | undefined;
  return variants === undefined ? [node] : variants.flatMap(variantsOf);
}

/** Whether zod said `.int()` for every number the node admits (`undefined`: it admits none). */
function isInteger(node: JsonSchema): boolean | undefined {
  const numeric = variantsOf(node).filter((v) => v["type"] === "integer" || v["type"] === "number");
  if (numeric.length === 0) return undefined;
  return numeric.every((v) => v["type"] === "integer");
}

/** The first variant of a node with `key` (`items` of an array, `additionalProperties` of a map). */
function part(node: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (node === undefined) return undefined;
  const found = variantsOf(node).find((v) => typeof v[key] === "object" && v[key] !== null);
  return found?.[key] as JsonSchema | undefined;
}

/** `tagId` → `tag_id`: the wire's spelling of an output's name. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Rewrites the `number`s of `spec` that zod says are integers, following arrays and maps into
 * `node`. Named and union types are left to their own definitions.
 */
function integerize(spec: TypeSpec, node: JsonSchema | undefined, where: string): void {
  if (spec.type === "number") {
    const integer = node === undefined ? undefined : isInteger(node);
    if (integer === undefined) {
      throw new Error(
        `schema: ${where} is a number with no zod schema saying whether it is an integer: add its source to OUTPUT_SOURCES (src/native/schema/sources.ts)`,
      );
    }
    if (integer) spec.type = "integer";
  } else if (spec.type === "array" && spec.items !== undefined) {
    integerize(spec.items, part(node, "items"), `${where}[]`);
  } else if (spec.type === "object" && spec.additionalProperties !== undefined) {
    integerize(spec.additionalProperties, part(node, "additionalProperties"), `${where}{}`);
  }
}

/** The zod node an output property's value comes from, by the rule above. */
function sourceNode(
  name: string,
  inputs: JsonSchema | undefined,
  source: OutputSource | undefined,
): JsonSchema | undefined {
  const input = (inputs?.["properties"] as Record<string, JsonSchema> | undefined)?.[name];
  if (input !== undefined) return input;
  const renamed = source?.renames?.[name];
  if (renamed !== undefined) return jsonOf(renamed, "output");
  if (source?.schema === undefined) return undefined;
  const wire = jsonOf(source.schema, "output")["properties"] as Record<string, JsonSchema>;
  return wire[snakeCase(name)] ?? wire[name];
}

/**
 * Types the numbers of the output properties of `owner` (a resource kind, a data source or a
 * named result type): from its input schema's JSON (`inputs`, for a resource), else from its
 * {@link OUTPUT_SOURCES} entry.
 */
export function integerOutputs(
  owner: string,
  properties: Record<string, PropertySpec>,
  inputs?: JsonSchema,
): void {
  const source = OUTPUT_SOURCES[owner];
  for (const [name, spec] of Object.entries(properties)) {
    integerize(spec, sourceNode(name, inputs, source), `${owner}.${name}`);
  }
}
