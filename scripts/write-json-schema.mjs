// The one way the schema scripts (`npm run schema`) write a JSON Schema the package ships: the
// file under the repository root, in the repository's own JSON style so `npm run lint` stays
// clean, and a line saying so.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Writes `schema` to `file` (relative to the repository root), formatted by Biome. */
export function writeJsonSchema(file, schema) {
  const target = join(root, file);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  execFileSync(join(root, "node_modules/.bin/biome"), ["format", "--write", target], {
    stdio: "ignore",
  });
  process.stdout.write(`wrote ${file}\n`);
}
