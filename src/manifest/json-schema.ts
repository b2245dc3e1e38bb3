import { z } from "zod";
import { ENTRY_NAME, ManifestSchema } from "./schema";

/** Where the package ships the schema, relative to its root (see package.json `files`). */
export const MANIFEST_SCHEMA_FILE = "schema/manifest.schema.json";

/**
 * The manifest's JSON Schema (draft 7, which every YAML language server reads), generated from
 * the zod schema the loader validates with, so editors complete and check exactly what the
 * loader accepts. The catalogue checks (plans, images, permissions) and references between
 * entries cannot be expressed in it: `pulumi preview` reports those.
 */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ManifestSchema, {
    target: "draft-7",
    io: "input",
    override: (ctx) => {
      // Sections are the only records; the loader checks their keys itself (see schema.ts).
      if (ctx.zodSchema._zod.def.type === "record") {
        ctx.jsonSchema.propertyNames = { type: "string", pattern: ENTRY_NAME.source };
      }
    },
  });
  return { ...schema, title: "pulumi-cloudinfra manifest" };
}
