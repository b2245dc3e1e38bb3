import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Emulator and engine tests start real HTTPS servers and gRPC hosts; forks keep them isolated.
    pool: "forks",
    // Each run gets a temp folder of its own and fails if a test leaves anything in it.
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests that log turn debug logging on themselves: a CLOUDINFRA_LOG=debug in the developer's
    // shell must not change what the others print or assert.
    env: { CLOUDINFRA_LOG: "" },
  },
});
