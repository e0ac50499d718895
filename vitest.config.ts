import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; e2e has its own config (e2e/vitest.config.ts).
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    // Two cores: integration tests start real databases and worker threads.
    maxWorkers: 2,
  },
});
