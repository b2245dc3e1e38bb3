// A fresh clone stays clean: `npm install` must read package-lock.json and leave it byte for
// byte as it is, with every npm a contributor may have (npm 11 of Node 24 and of this machine,
// npm 10 of Node 20 and 22). The two disagree on one field: npm 11 writes `libc` on Biome's and
// Rolldown's per-platform packages, npm 10 drops it; npm 11 keeps a lockfile without it. So the
// lockfile is written without `libc`, and with every platform's optional package (an npm 11.19
// lockfile written from scratch omits those of other systems, npm/cli#4828, and a later
// `npm install` adds them back).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");
const locked = readFileSync(join(root, "package-lock.json"), "utf8");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The lockfile after `npm install --package-lock-only` of `npm` (argv) in a copy of the project. */
function relock(npm: string[]): { lock: string; output: string; status: number | null } {
  const dir = mkdtempSync(join(tmpdir(), "cloudinfra-lock-"));
  dirs.push(dir);
  copyFileSync(join(root, "package.json"), join(dir, "package.json"));
  copyFileSync(join(root, "package-lock.json"), join(dir, "package-lock.json"));
  const [command = "npm", ...args] = npm;
  const run = spawnSync(
    command,
    [...args, "install", "--package-lock-only", "--ignore-scripts", "--prefer-offline"],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, npm_config_yes: "true" },
    },
  );
  return {
    lock: readFileSync(join(dir, "package-lock.json"), "utf8"),
    output: `${run.stdout}${run.stderr}`,
    status: run.status,
  };
}

/** Whether npm 10 can be run without the network (it is in npx's cache). */
function npm10Available(): boolean {
  const run = spawnSync("npx", ["--offline", "--yes", "npm@10", "--version"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return run.status === 0 && /^10\./.test(run.stdout.trim());
}

describe("package-lock.json", () => {
  it("lists the optional package of every platform Biome ships for", () => {
    const lock = JSON.parse(locked) as {
      packages: Record<string, { optionalDependencies?: object }>;
    };
    const biome = lock.packages["node_modules/@biomejs/biome"];
    const platforms = Object.keys(biome?.optionalDependencies ?? {});
    expect(platforms.length).toBeGreaterThan(2);
    const missing = platforms.filter((name) => lock.packages[`node_modules/${name}`] === undefined);
    expect(missing).toEqual([]);
  });

  it("is left unchanged by the npm that runs the npm scripts", { timeout: 150_000 }, () => {
    const { lock, output, status } = relock(["npm"]);
    expect(status, output).toBe(0);
    expect(lock).toBe(locked);
  });

  it.skipIf(!npm10Available())(
    "is left unchanged by npm 10 (Node 20's and 22's; skipped when npx has no npm@10 cached)",
    { timeout: 150_000 },
    () => {
      const { lock, output, status } = relock(["npx", "--offline", "--yes", "npm@10"]);
      expect(status, output).toBe(0);
      expect(lock).toBe(locked);
    },
  );
});
