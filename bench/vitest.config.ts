import { defineConfig } from 'vitest/config';

// The benchmarks' own tests (bench/**/*.test.ts): pure logic, such as the doc's sections against
// their stored data. No benchmark runs here; timings live in docs/benchmarks.md, never in a test.
export default defineConfig({
  test: {
    name: 'bench',
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**'],
  },
});
