import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'voice', include: ['src/**/*.test.ts'], isolate: false },
});
