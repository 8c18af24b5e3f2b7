// Unit and integration tests (the end-to-end tests under tests/e2e run with Playwright).
// The global setup starts a PostgreSQL server when its binaries are present, so the database
// tests run on PGlite and on PostgreSQL (tests/support/db.ts).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  test: {
    environment: "node",
    include: [
      "server/**/*.test.ts",
      "modules/**/*.test.ts",
      "core/**/*.test.ts",
      "app/**/*.test.ts",
      "tests/security/**/*.test.ts",
      "tests/html/**/*.test.ts",
      "tests/fault/**/*.test.ts",
      "tests/ops/**/*.test.ts",
      "tests/newcomer/**/*.test.ts",
      "tests/docs/**/*.test.ts",
      "tests/rules/**/*.test.ts",
    ],
    exclude: ["tests/e2e/**", "node_modules/**", "build/**"],
    globalSetup: ["tests/support/global-setup.ts"],
    // Scans every captured log line of every test file for secrets (docs/requirements.md §D7: no secret in logs).
    setupFiles: ["tests/security/log-scan.setup.ts"],
    // Child processes, one file per worker at a time; two workers suit a 2-core machine
    // (PGlite instances are memory-hungry, so more would only contend).
    pool: "forks",
    maxWorkers: process.env.VITEST_MAX_WORKERS ?? 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    watch: false,
    restoreMocks: true,
    unstubEnvs: true,
  },
});
