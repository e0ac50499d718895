import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'softphone',
    include: ['src/**/*.test.ts'],
    // Pure logic: the files share their workers' module cache.
    isolate: false,
  },
});
