// Stryker's settings for `npm run mutation`; scripts/mutation.mjs runs it once per module and sets
// the module (MUTATION_MODULE), its tests (MUTATION_TEST_FILES, read by vitest.mutation.config.mts)
// and the report file (MUTATION_REPORT). See docs/mutation-testing.md.
const mutate = process.env.MUTATION_MODULE;
if (mutate === undefined) throw new Error("run Stryker through `npm run mutation`");

export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.mts", related: false },
  mutate: [mutate],
  coverageAnalysis: process.env.MUTATION_COVERAGE ?? "perTest",
  // Module-level mutants (a constant Set, a class name) are run against every test after a
  // reload, not skipped; see docs/mutation-testing.md.
  ignoreStatic: false,
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? "1"),
  reporters: ["json", "clear-text", "progress-append-only"],
  jsonReporter: { fileName: process.env.MUTATION_REPORT },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: false },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // A mutant's run may take this much longer than the tests' own time before it counts as a
  // timeout (killed); scripts/mutation.mjs shortens it for the modules in its TIME_LIMITS.
  timeoutMS: Number(process.env.MUTATION_TIMEOUT_MS ?? "10000"),
  // The sandbox needs the sources, the tests, their fixtures (examples/ too) and dist/ (some
  // test helpers import it); not the docs or the benchmarks.
  ignorePatterns: ["docs", "bench", "reports", ".ci"],
  plugins: ["@stryker-mutator/vitest-runner"],
};
