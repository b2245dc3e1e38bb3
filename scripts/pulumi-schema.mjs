// Writes schema/pulumi-schema.json, the native provider's Pulumi package schema, from the built
// package's generator (`npm run schema` builds first), which reads the TypeScript sources for
// TSDoc and declared types. test/native/schema.test.ts fails while the committed file differs
// from what the generator produces.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { generatePackageSchema, formatPackageSchema } = require(
  join(root, "dist/native/schema/index.js"),
);
const { PACKAGE_SCHEMA_FILE } = require(join(root, "dist/native/package.js"));
const target = join(root, PACKAGE_SCHEMA_FILE);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, formatPackageSchema(generatePackageSchema(root)));
// In the repository's own JSON style, so `npm run lint` stays clean.
execFileSync(join(root, "node_modules/.bin/biome"), ["format", "--write", target], {
  stdio: "ignore",
});
process.stdout.write(`wrote ${PACKAGE_SCHEMA_FILE}\n`);
