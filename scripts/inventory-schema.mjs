// Writes schema/inventory-report.schema.json, the JSON Schema of `cloudinfra-inventory --json`,
// from the built package (`npm run schema` builds first). test/inventory/inventory.test.ts fails
// while the committed file differs from what the zod schema generates.
import { createRequire } from "node:module";
import { join } from "node:path";
import { root, writeJsonSchema } from "./write-json-schema.mjs";

const { inventoryJsonSchema, INVENTORY_SCHEMA_FILE } = createRequire(import.meta.url)(
  join(root, "dist/inventory/report-schema.js"),
);
writeJsonSchema(INVENTORY_SCHEMA_FILE, inventoryJsonSchema());
