// Writes schema/inventory-report.schema.json, the JSON Schema of `cloudinfra-inventory --json`,
// from the built package (`npm run schema` builds first). test/inventory/schema.test.ts fails
// while the committed file differs from what the zod schema generates.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { inventoryJsonSchema, INVENTORY_SCHEMA_FILE } = createRequire(import.meta.url)(
  join(root, "dist/inventory/report-schema.js"),
);
const target = join(root, INVENTORY_SCHEMA_FILE);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(inventoryJsonSchema(), null, 2)}\n`);
// In the repository's own JSON style, so `npm run lint` stays clean.
execFileSync(join(root, "node_modules/.bin/biome"), ["format", "--write", target], {
  stdio: "ignore",
});
process.stdout.write(`wrote ${INVENTORY_SCHEMA_FILE}\n`);
