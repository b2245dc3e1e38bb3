import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Emulator and engine tests start real HTTPS servers and gRPC hosts; forks keep them isolated.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Never let a stray network call leave the machine: tests only ever talk to 127.0.0.1.
    env: { CLOUDINFRA_LOG: "" },
  },
});
