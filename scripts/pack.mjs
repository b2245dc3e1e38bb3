// `npm run pack`: the package as a tarball for another project (`npm install <file>.tgz`), with a
// package.json that holds only what an installed copy uses. The repository's scripts (`prepare`
// builds dist/ with the dev dependencies, `start` runs the quick start of this repository, ...)
// need files the tarball does not ship, and npm 11 lists a packed `prepare` as an install script
// to approve; the dev dependencies and `allowScripts` concern only this repository's install.
//
// It builds dist/ when stale, packs the repository as `npm pack` does (the `files` list), then
// packs that content again from a private temporary folder with the trimmed package.json. The
// repository's own files are read, never written (another command may be reading them).
//
// Usage: node scripts/pack.mjs [--pack-destination DIR]   (default: the current folder)
// Prints the path of the tarball it wrote.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "..", "..");
const at = process.argv.indexOf("--pack-destination");
const destination = resolve(at > 0 ? (process.argv[at + 1] ?? ".") : ".");
const npm = process.env.npm_execpath
  ? [process.execPath, process.env.npm_execpath]
  : [process.platform === "win32" ? "npm.cmd" : "npm"];

/** Runs npm with `args` in `cwd` and returns its standard output. */
function runNpm(args, cwd) {
  const [command, ...prefix] = npm;
  return execFileSync(command, [...prefix, ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
}

/** The file name `npm pack --json` says it wrote. */
const packed = (json) => JSON.parse(json)[0].filename;

execFileSync(process.execPath, [join(root, "scripts", "build.mjs"), "--if-stale"], {
  stdio: "inherit",
});
// mkdtemp makes a new folder that only this user can enter: nothing another user planted is used.
const work = mkdtempSync(join(tmpdir(), "cloudinfra-pack-"));
try {
  const first = packed(
    runNpm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], root),
  );
  execFileSync("tar", ["-xzf", join(work, first), "-C", work]);
  const stage = join(work, "package");
  const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
  delete manifest.scripts;
  delete manifest.devDependencies;
  delete manifest.allowScripts;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const name = packed(
    runNpm(["pack", "--json", "--ignore-scripts", "--pack-destination", destination], stage),
  );
  process.stdout.write(`${join(destination, name)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
