import { defineConfig } from 'vitest/config';

// End-to-end specs: the built product in a child process, Chromium driven by playwright-core.
// One file at a time (2 cores; each spec runs a server and browsers).
export default defineConfig({
  test: {
    name: 'e2e',
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.e2e.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
