import { defineConfig } from "vitest/config";
import base from "./vitest.config.mts";

// The test files `npm run mutation` runs against one module (scripts/mutation.mjs sets them).
const files = (process.env.MUTATION_TEST_FILES ?? "").split(",").filter((file) => file !== "");

// A shorter limit per test for the modules whose mutants can leave a test waiting (TIME_LIMITS in
// scripts/mutation.mjs).
const testTimeout = process.env.MUTATION_TEST_TIMEOUT_MS;

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: files,
    ...(testTimeout === undefined ? {} : { testTimeout: Number(testTimeout) }),
  },
});
