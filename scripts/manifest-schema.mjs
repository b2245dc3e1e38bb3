// Writes schema/manifest.schema.json, the manifest's JSON Schema that the package ships for
// editors, from the built package (`npm run schema` builds first). test/manifest/json-schema.test.ts
// fails while the committed file differs from what the zod schema generates.
import { createRequire } from "node:module";
import { join } from "node:path";
import { root, writeJsonSchema } from "./write-json-schema.mjs";

const { manifestJsonSchema, MANIFEST_SCHEMA_FILE } = createRequire(import.meta.url)(
  join(root, "dist/manifest/json-schema.js"),
);
writeJsonSchema(MANIFEST_SCHEMA_FILE, manifestJsonSchema());
