// Prints `export CLOUDINFRA_...=` lines for the emulator started by `npm run emulator`, read from
// its emulator.json, so another shell can `eval "$(npm run -s emulator:env)"`.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const dir = resolve(process.argv[2] ?? ".emulator");
let info;
try {
  info = JSON.parse(readFileSync(join(dir, "emulator.json"), "utf8"));
} catch {
  process.stderr.write(
    `no running emulator found: ${join(dir, "emulator.json")} is missing; start one with \`npm run emulator\`\n`,
  );
  process.exit(1);
}
const quote = (v) => `'${String(v).replaceAll("'", "'\\''")}'`;
process.stdout.write(
  `export CLOUDINFRA_ENDPOINT=${quote(info.endpoint)}\n` +
    `export CLOUDINFRA_API_KEY=${quote(info.apiKey)}\n` +
    `export CLOUDINFRA_CA_CERT=${quote(info.caCertFile)}\n`,
);
