import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace, and the contract tests of the web console's
// fake server against the real server (contract/); e2e has its own config (e2e/vitest.config.ts).
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'contract'],
    // Two cores: integration tests start real databases and worker threads.
    maxWorkers: 2,
  },
});
