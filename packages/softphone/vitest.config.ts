import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'softphone', include: ['src/**/*.test.ts'] },
});
