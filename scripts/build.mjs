// Builds dist/ from src/: a CommonJS build with declarations (see docs/module-format.md), plus
// the emulator's data files, which tsc does not copy. Files are overwritten in place, so tests
// running against dist/ meanwhile never see it missing; `--clean` starts from an empty dist/.
// `--if-stale` builds only when something the build reads (src/, its folders, the tsconfig
// files, package.json) changed after the last whole build, which dist/.build-stamp records.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".build-stamp");

/** The newest modification time under `path`; a folder's own time covers files removed from it. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

if (process.argv.includes("--if-stale") && existsSync(stamp)) {
  const inputs = ["src", "tsconfig.json", "tsconfig.build.json", "package.json"];
  if (Math.max(...inputs.map((p) => newest(join(root, p)))) < statSync(stamp).mtimeMs) {
    process.exit(0);
  }
}
rmSync(stamp, { force: true });
const started = new Date();
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
// The package's executables (package.json `bin`) keep their `#!/usr/bin/env node` line through
// tsc, but a file tsc creates is not executable: `npm install` marks bin targets executable when
// it links them, so after a `--clean` build (or dist/ removed) `pulumi-resource-cloudinfra` in
// node_modules/.bin would not run, and the CLI's PATH lookup (executables only) would skip it.
const { bin = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
for (const target of Object.values(bin)) chmodSync(join(root, target), 0o755);
// Written last: a build that failed or was stopped leaves no stamp, so the next one runs. Dated
// when the build started, so a file changed while tsc ran is newer and builds again.
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
