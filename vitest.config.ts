import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace, the contract tests of the web console's fake
// server against the real server (contract/), and the benchmarks' own tests (bench/: the doc's
// generated sections, no benchmark runs); e2e has its own config (e2e/vitest.config.ts).
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'contract', 'bench'],
    // Two cores: integration tests start real databases and worker threads.
    maxWorkers: 2,
  },
});
