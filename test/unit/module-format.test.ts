/**
 * The built package loads the way users' programs load it: `require()` from CommonJS programs and
 * `import` with named exports from ES-module programs (docs/module-format.md), through the
 * `exports` map's entry points only.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "..", "..");
const NAMES = [
  "Server",
  "SshKey",
  "Tag",
  "Role",
  "User",
  "SecurityGroup",
  "SecurityGroupAttachment",
];
let project: string;

/** Runs a program in a user's project that depends on the package. */
function run(file: string, source: string): string {
  writeFileSync(join(project, file), source);
  return execFileSync(process.execPath, [join(project, file)], {
    cwd: project,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "cloudinfra-user-project-"));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "user-project", private: true }),
  );
  const modules = join(project, "node_modules");
  mkdirSync(modules);
  symlinkSync(ROOT, join(modules, "pulumi-cloudinfra"), "dir");
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

describe("module format", () => {
  it("an ES-module program imports every resource class and data source by name", () => {
    const out = run(
      "program.mjs",
      `import { ${NAMES.join(", ")}, getPlanOutput, getCountry } from "pulumi-cloudinfra";
       import { CloudInfraClient } from "pulumi-cloudinfra/api";
       import { startEmulator } from "pulumi-cloudinfra/emulator";
       console.log(JSON.stringify([${NAMES.join(", ")}, getPlanOutput, getCountry, CloudInfraClient, startEmulator].map((x) => typeof x)));`,
    );
    expect(JSON.parse(out)).toEqual(Array(NAMES.length + 4).fill("function"));
  });

  it("a CommonJS program requires the same entry points", () => {
    const out = run(
      "program.cjs",
      `const c = require("pulumi-cloudinfra");
       const { CloudInfraClient } = require("pulumi-cloudinfra/api");
       const provider = require("pulumi-cloudinfra/provider");
       console.log(JSON.stringify([${NAMES.map((n) => `typeof c.${n}`).join(", ")}, typeof CloudInfraClient, typeof provider.run]));`,
    );
    expect(JSON.parse(out)).toEqual(Array(NAMES.length + 2).fill("function"));
  });

  it("loads neither the API client nor undici until a data source is called", () => {
    // A program of resources alone never calls the API itself (the provider host does): the
    // client is ~10 MB of the program's memory it would carry for nothing.
    const out = run(
      "lazy.cjs",
      `const c = require("pulumi-cloudinfra");
       const loaded = () =>
         Object.keys(require.cache).some((f) => f.includes("/undici/") || f.endsWith("/api/client.js"));
       const before = loaded();
       process.env.CLOUDINFRA_ENDPOINT = "https://127.0.0.1:9";
       process.env.CLOUDINFRA_API_KEY = "not-a-key";
       c.getPlans({}, { signal: AbortSignal.abort() }).catch(() =>
         console.log(JSON.stringify([before, loaded()])),
       );`,
    );
    expect(JSON.parse(out)).toEqual([false, true]);
  });

  it("internal files are not reachable around the exports map", () => {
    expect(() =>
      run("internal.cjs", `require("pulumi-cloudinfra/dist/resources/common");`),
    ).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED|not defined by "exports"/);
  });
});
