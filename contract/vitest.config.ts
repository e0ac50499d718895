import { defineConfig } from 'vitest/config';

// Contract tests: the web console's fake server against the real server (in this process, on
// PGlite, with the real voice engine). Part of `vitest run` (the root config's projects).
export default defineConfig({
  test: {
    name: 'contract',
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 60_000,
    // Starting the product runs PGlite's migrations and the media workers (up to 88 s seen on a
    // loaded two-core machine, apps/server/src/calls/real-engine-smoke.integration.test.ts).
    hookTimeout: 180_000,
  },
});
