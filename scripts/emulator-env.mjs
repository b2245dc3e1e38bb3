// `npm run -s emulator:env [-- --data-dir DIR]`: the `export CLOUDINFRA_...=` lines of a running
// emulator, for `eval "$(npm run -s emulator:env)"` in another shell. The same as
// `cloudinfra-emulator env` (src/emulator/cli/env.ts): the emulator in --data-dir DIR, or else the
// one running in ./.emulator or started anywhere else by this user; which one it chose, or why
// none, goes to stderr.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let emulatorEnv;
try {
  ({ emulatorEnv } = createRequire(import.meta.url)(
    join(root, "dist", "emulator", "cli", "env.js"),
  ));
} catch {
  process.stderr.write(
    "emulator env: dist/ is not built; run `npm run build` (or `npm install`)\n",
  );
  process.exit(1);
}

let values;
try {
  // A bare directory is the older spelling of --data-dir.
  const parsed = parseArgs({ options: { "data-dir": { type: "string" } }, allowPositionals: true });
  values = { dataDir: parsed.values["data-dir"] ?? parsed.positionals[0] };
} catch (error) {
  process.stderr.write(
    `emulator env: ${error.message}; usage: npm run -s emulator:env -- [--data-dir DIR]\n`,
  );
  process.exit(2);
}
const result = emulatorEnv({ dataDir: values.dataDir, cwd: process.cwd() });
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.code;
