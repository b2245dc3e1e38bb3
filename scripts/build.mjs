// Builds dist/ from src/: a CommonJS build with declarations (see docs/module-format.md), plus
// the emulator's data files, which tsc does not copy. Files are overwritten in place, so tests
// running against dist/ meanwhile never see it missing; `--clean` starts from an empty dist/.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv.includes("--clean")) rmSync(join(root, "dist"), { recursive: true, force: true });
try {
  execFileSync(
    process.execPath,
    [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")],
    { stdio: "inherit" },
  );
} catch (error) {
  // tsc has printed its errors; a stack trace of this script would only repeat that it failed.
  process.stderr.write("build: tsc failed (its errors are above); dist/ is not up to date\n");
  process.exit(typeof error.status === "number" ? error.status : 1);
}
const data = join(root, "src/emulator/data");
if (existsSync(data)) {
  cpSync(data, join(root, "dist/emulator/data"), {
    recursive: true,
    filter: (p) => !p.endsWith(".ts"),
  });
}
