// Writes schema/manifest.schema.json, the manifest's JSON Schema that the package ships for
// editors, from the built package (`npm run schema` builds first). test/manifest/json-schema.test.ts
// fails while the committed file differs from what the zod schema generates.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { manifestJsonSchema, MANIFEST_SCHEMA_FILE } = createRequire(import.meta.url)(
  join(root, "dist/manifest/json-schema.js"),
);
const target = join(root, MANIFEST_SCHEMA_FILE);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
// In the repository's own JSON style, so `npm run lint` stays clean.
execFileSync(join(root, "node_modules/.bin/biome"), ["format", "--write", target], {
  stdio: "ignore",
});
process.stdout.write(`wrote ${MANIFEST_SCHEMA_FILE}\n`);
