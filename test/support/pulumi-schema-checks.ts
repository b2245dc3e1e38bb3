/**
 * The checks of a Pulumi package schema that need no copy of Pulumi's metaschema: every token is
 * `<package>:<module>:<name>`, every `$ref` resolves, every `required` name is a property, and
 * every type reference has exactly one well-formed shape (primitive, array, map, named, union).
 * Returns one line per problem, naming where it is; an empty list means none was found.
 */

type Json = Record<string, unknown>;

const TOKEN = /^[a-zA-Z][-a-zA-Z0-9_]*:[a-zA-Z0-9._/]*:[a-zA-Z][a-zA-Z0-9_]*$/;
const BUILT_IN = new Set(["pulumi.json#/Any", "pulumi.json#/Archive", "pulumi.json#/Asset"]);
const PRIMITIVES = new Set(["boolean", "integer", "number", "string"]);

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function schemaProblems(schema: Json): string[] {
  const problems: string[] = [];
  const types = isObject(schema["types"]) ? schema["types"] : {};

  const checkType = (spec: unknown, where: string): void => {
    if (!isObject(spec)) {
      problems.push(`${where}: not an object`);
      return;
    }
    const ref = spec["$ref"];
    if (typeof ref === "string") {
      const local = ref.startsWith("#/types/") ? ref.slice("#/types/".length) : undefined;
      if (local !== undefined ? !(local in types) : !BUILT_IN.has(ref)) {
        problems.push(`${where}: $ref ${ref} resolves to nothing`);
      }
      return;
    }
    if (Array.isArray(spec["oneOf"])) {
      if (spec["oneOf"].length < 2) problems.push(`${where}: a union needs at least two types`);
      spec["oneOf"].forEach((t, i) => {
        checkType(t, `${where}.oneOf[${i}]`);
      });
      return;
    }
    const type = spec["type"];
    if (type === "array") {
      if (spec["items"] === undefined) problems.push(`${where}: an array without items`);
      else checkType(spec["items"], `${where}.items`);
    } else if (type === "object") {
      if (spec["additionalProperties"] !== undefined) {
        checkType(spec["additionalProperties"], `${where}.additionalProperties`);
      }
    } else if (typeof type !== "string" || !PRIMITIVES.has(type)) {
      problems.push(`${where}: type ${JSON.stringify(type)} is no Pulumi type`);
    } else if (spec["items"] !== undefined || spec["additionalProperties"] !== undefined) {
      problems.push(`${where}: a primitive with items or additionalProperties`);
    }
  };

  const checkObject = (
    properties: unknown,
    required: unknown,
    where: string,
    requiredName = "required",
  ): void => {
    if (!isObject(properties)) {
      problems.push(`${where}: properties missing`);
      return;
    }
    for (const [name, spec] of Object.entries(properties)) checkType(spec, `${where}.${name}`);
    if (required === undefined) return;
    if (!Array.isArray(required)) {
      problems.push(`${where}: ${requiredName} is not a list`);
      return;
    }
    for (const name of required) {
      if (typeof name !== "string" || !(name in properties)) {
        problems.push(`${where}: ${requiredName} names ${String(name)}, which is no property`);
      }
    }
  };

  const checkTokens = (section: string): Json => {
    const entries = schema[section];
    if (!isObject(entries)) return {};
    for (const token of Object.keys(entries)) {
      if (!TOKEN.test(token)) problems.push(`${section}: ${token} is not a token`);
      else if (!token.startsWith(`${String(schema["name"])}:`)) {
        problems.push(`${section}: ${token} is not in package ${String(schema["name"])}`);
      }
    }
    return entries;
  };

  for (const [token, spec] of Object.entries(checkTokens("types"))) {
    if (!isObject(spec) || spec["type"] !== "object") {
      problems.push(`types.${token}: not an object type`);
      continue;
    }
    checkObject(spec["properties"], spec["required"], `types.${token}`);
  }
  const resources: [string, unknown][] = [
    ...Object.entries(checkTokens("resources")),
    ["provider", schema["provider"]],
  ];
  for (const [token, spec] of resources) {
    if (!isObject(spec)) {
      problems.push(`${token}: not an object`);
      continue;
    }
    checkObject(spec["properties"] ?? {}, spec["required"], `${token}.properties`);
    checkObject(
      spec["inputProperties"] ?? {},
      spec["requiredInputs"],
      `${token}.inputProperties`,
      "requiredInputs",
    );
  }
  for (const [token, spec] of Object.entries(checkTokens("functions"))) {
    if (!isObject(spec)) continue;
    for (const side of ["inputs", "outputs"] as const) {
      const object = spec[side];
      if (object === undefined && side === "inputs") continue;
      if (!isObject(object)) problems.push(`functions.${token}.${side}: missing`);
      else checkObject(object["properties"], object["required"], `functions.${token}.${side}`);
    }
  }
  const config = schema["config"];
  if (isObject(config)) checkObject(config["variables"] ?? {}, config["defaults"], "config");
  return problems;
}
