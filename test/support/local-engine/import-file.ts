/**
 * What `pulumi import` reads before it runs anything (pkg/cmd/pulumi/operations/import.go of
 * pulumi/pulumi): the bulk file of `--file` (`{"nameTable"?, "resources": [{"type", "name",
 * "id", "logicalName"?, "provider"?}]}`), or one inline resource with `--provider name=urn`,
 * turned into the engine's import specs. Errors use the CLI's words and all are reported at once,
 * as `parseImportFile` collects them; nothing runs when there is one.
 */
import type { ImportSpec } from "./deployment.ts";

/** What the local engine cannot do that the CLI's file allows: named so a user knows. */
const UNSUPPORTED: Record<string, string> = {
  parent: "parents",
  component: "component resources",
  remote: "remote components",
  inputs: "given inputs",
  outputs: "given outputs (import without Read)",
  parameterization: "parameterized providers",
  extension: "provider extensions",
};

/** Accepted and without effect here: code generation and plugin versions do not exist. */
const IGNORED = new Set(["properties", "version", "pluginDownloadUrl"]);
const KNOWN = new Set(["type", "name", "id", "logicalName", "provider"]);

const PROVIDER_PREFIX = "pulumi:providers:";

export class ImportFileError extends Error {
  override name = "ImportFileError";
}

/** `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, as `resource.URN.IsValid` sees it. */
function isUrn(text: string): boolean {
  return /^urn:pulumi:[^:]+::[^:]+::[^:]+(?::[^:]+)*::.+$/.test(text);
}

function typeOfUrn(urn: string): string {
  return (urn.split("::")[2] ?? "").split("$").at(-1) ?? "";
}

/** parseResourceSpec: `name=urn`, refusing a provider reference (`urn::id`) with the URN to use. */
export function parseResourceSpec(spec: string): { name: string; urn: string } {
  const i = spec.indexOf("=");
  const name = i < 0 ? "" : spec.slice(0, i);
  const urn = i < 0 ? "" : spec.slice(i + 1);
  if (name === "" || urn === "") throw new ImportFileError("spec must be of the form name=URN");
  // A provider reference (`urn::id`) passes the CLI's own URN check and then matches no provider;
  // said here instead, in the words the CLI uses for a reference it recognises.
  const parts = urn.split("::");
  if (parts.length > 4 && typeOfUrn(urn).startsWith(PROVIDER_PREFIX))
    throw new ImportFileError(
      `expected a URN but got a Provider Reference, use '${parts.slice(0, -1).join("::")}' instead`,
    );
  if (!isUrn(urn)) throw new ImportFileError(`expected a URN but got '${urn}'`);
  return { name, urn };
}

/** makeImportFile: the import file of `import <type> <name> <id> [--provider name=urn]`. */
export function inlineImportFile(
  type: string,
  name: string,
  id: string,
  providerSpec: string | undefined,
): unknown {
  if (providerSpec === undefined) return { resources: [{ type, name, id }] };
  // As the CLI: a bare URN names the provider "provider".
  const provider = isUrn(providerSpec)
    ? { name: "provider", urn: providerSpec }
    : parseResourceSpec(providerSpec);
  return {
    nameTable: { [provider.name]: provider.urn },
    resources: [{ type, name, id, provider: provider.name }],
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The import specs of an import file (already parsed JSON), with each resource's provider as a
 * URN. Every resource is imported under the stack, so its type and logical name make its URN.
 */
export function importSpecsOf(file: unknown): ImportSpec[] {
  const errors: string[] = [];
  if (!isRecord(file)) throw new ImportFileError("the import file must hold a JSON object");
  const nameTable = file["nameTable"] ?? {};
  if (!isRecord(nameTable)) errors.push("'nameTable' must map names to URNs");
  const table: Record<string, string> = {};
  for (const [name, urn] of Object.entries(isRecord(nameTable) ? nameTable : {})) {
    if (typeof urn !== "string" || !isUrn(urn))
      errors.push(`'nameTable' entry '${name}' is not a URN: ${JSON.stringify(urn)}`);
    else table[name] = urn;
  }
  for (const key of Object.keys(file)) {
    if (key === "providerInputs")
      errors.push(
        "'providerInputs' is not supported by the local engine (providers must be in the state)",
      );
    else if (key !== "nameTable" && key !== "resources") errors.push(`unknown field '${key}'`);
  }
  const resources = file["resources"];
  if (!Array.isArray(resources) || resources.length === 0)
    throw new ImportFileError(
      [...errors, "'resources' must be a non-empty list of {type, name, id}"].join("\n"),
    );

  const describe = (i: number, r: Record<string, unknown>) => {
    const who =
      typeof r["name"] === "string" && r["name"] !== ""
        ? `'${r["name"]}'`
        : typeof r["id"] === "string" && r["id"] !== ""
          ? `'${r["id"]}'`
          : String(i);
    return `resource ${who}${typeof r["type"] === "string" && r["type"] !== "" ? ` of type '${r["type"]}'` : ""}`;
  };
  const specs: ImportSpec[] = [];
  const inFile = new Set(
    resources.flatMap((r: unknown) =>
      isRecord(r) ? [r["name"], r["logicalName"]].filter((n) => typeof n === "string") : [],
    ),
  );
  const urns = new Set<string>();
  resources.forEach((raw: unknown, i) => {
    if (!isRecord(raw)) {
      errors.push(`resource ${i} is not an object`);
      return;
    }
    const what = describe(i, raw);
    for (const key of Object.keys(raw)) {
      const feature = UNSUPPORTED[key];
      if (feature !== undefined)
        errors.push(`${what}: '${key}' is not supported by the local engine (no ${feature})`);
      else if (!KNOWN.has(key) && !IGNORED.has(key)) errors.push(`${what}: unknown field '${key}'`);
    }
    const str = (key: string) => (typeof raw[key] === "string" ? (raw[key] as string) : "");
    for (const key of ["type", "name", "id", "logicalName", "provider"]) {
      if (raw[key] !== undefined && typeof raw[key] !== "string")
        errors.push(`${what}: '${key}' must be a string`);
    }
    const type = str("type");
    const name = str("name") || str("logicalName");
    const logicalName = str("logicalName") || name;
    const id = str("id");
    if (type === "") errors.push(`${what} has no type`);
    if (name === "") errors.push(`${what} has no name`);
    if (type.startsWith(PROVIDER_PREFIX))
      errors.push(
        `${what} is a provider, which is created rather than read; the local engine imports only with providers already in the state`,
      );
    else if (id === "") errors.push(`${what} has no ID`);
    const urn = `${type}::${logicalName}`;
    if (urns.has(urn))
      errors.push(`${what} has an ambiguous URN, set name (or logical name) to be unique`);
    urns.add(urn);
    const spec: ImportSpec = { type, name: logicalName, id };
    const provider = str("provider");
    if (provider !== "") {
      const providerUrn = table[provider];
      if (providerUrn === undefined)
        errors.push(
          inFile.has(provider)
            ? `the provider '${provider}' for ${what} is a resource of the file; the local engine imports only with providers already in the state`
            : `the provider '${provider}' for ${what} has no entry in 'nameTable'`,
        );
      else if (!typeOfUrn(providerUrn).startsWith(PROVIDER_PREFIX))
        errors.push(`the provider '${provider}' for ${what} is not a provider`);
      else spec.provider = providerUrn;
    }
    specs.push(spec);
  });
  if (errors.length > 0) throw new ImportFileError(errors.join("\n"));
  return specs;
}
