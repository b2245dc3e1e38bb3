#!/usr/bin/env node
/*
 * `npm run mutation [-- <module> ...]`: Stryker over the pure modules, one module at a time, each
 * against the fast unit tests that exercise it (never the program tests), then the score of each
 * module. Not part of `npm test` or CI: the whole list takes long (docs/mutation-testing.md has
 * the figures), so name one module or a few while working on them.
 *
 * Options: MUTATION_CONCURRENCY (Stryker's test processes, 1 by default, at most 2: the machine is
 * shared); MUTATION_COVERAGE=off runs every test against every mutant instead of only the tests
 * that reach it (slower; the same verdicts, see the docs).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const reportDir = join(root, "reports", "mutation");

/** A kind's model tests: pure, no emulator (test/resources/<kind>-model.test.ts). */
const modelTests = (kind) => [`test/resources/${kind}-model.test.ts`];

/** Each pure module and the fast tests that exercise it. */
export const MODULES = {
  "src/api/retry.ts": ["test/unit/http-retry.test.ts", "test/unit/retry-boundaries.test.ts"],
  "src/api/rate-budget.ts": [
    "test/unit/rate-budget.test.ts",
    "test/unit/rate-budget-boundaries.test.ts",
    "test/unit/http-retry.test.ts",
  ],
  "src/api/http-options.ts": [
    "test/unit/http-options-pinned.test.ts",
    "test/unit/http-client.test.ts",
    "test/unit/http-socket.test.ts",
  ],
  "src/api/errors.ts": [
    "test/unit/errors.test.ts",
    "test/unit/errors-pinned.test.ts",
    "test/unit/error-hierarchy.test.ts",
    "test/unit/http-client.test.ts",
  ],
  "src/lib/cli-output.ts": ["test/unit/cli-output.test.ts", "test/unit/cli-output-pinned.test.ts"],
  "src/lib/defined.ts": ["test/unit/defined-pinned.test.ts"],
  "src/lib/duration.ts": modelTests("server"),
  "src/lib/json-bounds.ts": ["test/unit/json-bounds-boundaries.test.ts"],
  "src/lib/money.ts": ["test/unit/money.test.ts", "test/unit/money-boundaries.test.ts"],
  "src/lib/names.ts": [
    "test/unit/names-pinned.test.ts",
    "test/unit/references.test.ts",
    "test/manifest/yaml-document.test.ts",
    "test/manifest/load.test.ts",
    "test/resources/role.test.ts",
  ],
  "src/lib/read-failure.ts": ["test/unit/read-failure.test.ts"],
  "src/lib/references.ts": [
    "test/unit/references.test.ts",
    "test/unit/references-boundaries.test.ts",
  ],
  "src/lib/sshkeys.ts": ["test/unit/sshkeys.test.ts"],
  "src/lib/text.ts": ["test/unit/text-rules.test.ts", "test/unit/text-boundaries.test.ts"],
  "src/lib/yaml-document.ts": [
    "test/unit/yaml-document-pinned.test.ts",
    "test/manifest/yaml-document.test.ts",
    "test/manifest/yaml-positions.test.ts",
    "test/manifest/load.test.ts",
  ],
  "src/lib/yaml-positions.ts": [
    "test/manifest/yaml-positions.test.ts",
    "test/manifest/yaml-positions-pinned.test.ts",
    "test/unit/yaml-document-pinned.test.ts",
    "test/manifest/yaml-document.test.ts",
  ],
  "src/resources/input-rules.ts": [
    ...modelTests("user"),
    ...modelTests("ssh-key"),
    ...modelTests("server"),
    ...modelTests("tag"),
    ...modelTests("role"),
    ...modelTests("security-group"),
    ...modelTests("security-group-attachment"),
  ],
  "src/resources/role/model.ts": modelTests("role"),
  "src/resources/role/permissions.ts": modelTests("role"),
  "src/resources/security-group/cidr.ts": [
    "test/resources/security-group.test.ts",
    "test/resources/cidr-boundaries.test.ts",
  ],
  "src/resources/security-group/model.ts": modelTests("security-group"),
  "src/resources/security-group-attachment/model.ts": modelTests("security-group-attachment"),
  "src/resources/server/model.ts": modelTests("server"),
  "src/resources/ssh-key/model.ts": modelTests("ssh-key"),
  "src/resources/tag/model.ts": modelTests("tag"),
  "src/resources/user/model.ts": modelTests("user"),
  "src/manifest/load.ts": [
    "test/manifest/load.test.ts",
    "test/manifest/load-pinned.test.ts",
    "test/manifest/load-boundaries.test.ts",
    "test/manifest/hostile-files.test.ts",
  ],
  "src/drift-report/report.ts": [
    "test/drift-report/report.test.ts",
    "test/drift-report/report-pinned.test.ts",
    "test/drift-report/report-boundaries.test.ts",
  ],
};

/**
 * Modules whose mutants can stop what a test awaits, with shorter time limits than the defaults
 * (Stryker's 10 s over a test's own time, vitest's 30 s a test): a mutant that stops the rate
 * budget's pump leaves each test waiting for a ticket that never comes, or spinning on one that
 * comes at once, and at the defaults the run took more than 26 minutes without ending. Its tests
 * run on fake clocks and take under 2 s each, even on a loaded machine.
 */
export const TIME_LIMITS = {
  "src/api/rate-budget.ts": { strykerTimeoutMs: 3_000, testTimeoutMs: 5_000 },
};

function fail(message) {
  process.stderr.write(`mutation: ${message}\n`);
  process.exit(2);
}

const concurrency = process.env.MUTATION_CONCURRENCY ?? "1";
if (concurrency !== "1" && concurrency !== "2") {
  fail(`MUTATION_CONCURRENCY is ${JSON.stringify(concurrency)}; allowed: 1 or 2`);
}
const coverage = process.env.MUTATION_COVERAGE ?? "perTest";
if (coverage !== "perTest" && coverage !== "off") {
  fail(`MUTATION_COVERAGE is ${JSON.stringify(coverage)}; allowed: perTest or off`);
}

const wanted = process.argv.slice(2).map((arg) => arg.replace(/^\.\//, ""));
for (const module of wanted) {
  if (!(module in MODULES)) {
    fail(
      `${module} is not a mutation-tested module; the modules are:\n  ${Object.keys(MODULES).join("\n  ")}`,
    );
  }
}
const modules = wanted.length > 0 ? wanted : Object.keys(MODULES);
mkdirSync(reportDir, { recursive: true });
// Some test helpers import dist/ (test/support/programs.ts); build it when the sources changed.
const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], {
  cwd: root,
  stdio: "inherit",
});
if (build.status !== 0) fail("the build failed");

/** Counts of one module's mutants by status, from Stryker's JSON report. */
function tally(reportFile, module) {
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  const mutants = report.files[module]?.mutants ?? [];
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
  const detected = count("Killed", "Timeout");
  const undetected = count("Survived", "NoCoverage");
  const statics = mutants.filter((m) => m.static);
  return {
    mutants: mutants.length,
    killed: detected,
    survived: count("Survived"),
    noCoverage: count("NoCoverage"),
    static: `${statics.filter((m) => m.status === "Killed" || m.status === "Timeout").length}/${statics.length}`,
    score: detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected),
  };
}

const rows = [];
const started = Date.now();
for (const module of modules) {
  const tests = MODULES[module];
  const reportFile = join(reportDir, `${module.replaceAll("/", "_")}.json`);
  const begin = Date.now();
  process.stdout.write(`\n=== ${module} (tests: ${tests.join(", ")})\n`);
  const run = spawnSync("stryker", ["run", "stryker.config.mjs"], {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      MUTATION_MODULE: module,
      MUTATION_TEST_FILES: tests.join(","),
      MUTATION_REPORT: reportFile,
      MUTATION_CONCURRENCY: concurrency,
      MUTATION_COVERAGE: coverage,
      ...(module in TIME_LIMITS
        ? {
            MUTATION_TIMEOUT_MS: String(TIME_LIMITS[module].strykerTimeoutMs),
            MUTATION_TEST_TIMEOUT_MS: String(TIME_LIMITS[module].testTimeoutMs),
          }
        : {}),
    },
  });
  const seconds = Math.round((Date.now() - begin) / 1000);
  if (run.status !== 0) {
    rows.push({ module, error: `stryker exited with ${run.status ?? run.signal}`, seconds });
    continue;
  }
  rows.push({ module, ...tally(reportFile, module), seconds });
}

const total = Math.round((Date.now() - started) / 1000);
process.stdout.write(
  "\nmodule | mutants | killed | survived | no coverage | static killed | score | time\n",
);
for (const row of rows) {
  process.stdout.write(
    row.error === undefined
      ? `${row.module} | ${row.mutants} | ${row.killed} | ${row.survived} | ${row.noCoverage} | ${row.static} | ${row.score.toFixed(1)} % | ${row.seconds} s\n`
      : `${row.module} | ${row.error} | ${row.seconds} s\n`,
  );
}
process.stdout.write(`total: ${total} s; reports in reports/mutation/\n`);
process.exit(rows.some((row) => row.error !== undefined) ? 1 : 0);
