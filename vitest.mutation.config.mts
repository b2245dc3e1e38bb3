import { defineConfig } from "vitest/config";
import base from "./vitest.config.mts";

// The test files `npm run mutation` runs against one module (scripts/mutation.mjs sets them).
const files = (process.env.MUTATION_TEST_FILES ?? "").split(",").filter((file) => file !== "");

export default defineConfig({ ...base, test: { ...base.test, include: files } });
