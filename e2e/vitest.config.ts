import { defineConfig } from 'vitest/config';

// End-to-end specs: the built product in a child process, Chromium driven by playwright-core.
// One file at a time (2 cores; each spec runs a server and browsers).
export default defineConfig({
  test: {
    name: 'e2e',
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.e2e.ts'],
    // axe-core on every console view a spec reaches, asserted after each file.
    setupFiles: ['./support/view-audit-setup.ts'],
    // The demo database, migrated and seeded once; each spec's product starts on a copy.
    globalSetup: ['./support/seeded-database.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    // A spec's setup starts the product (up to START_TIMEOUT_MS in support/product.ts).
    hookTimeout: 240_000,
  },
});
