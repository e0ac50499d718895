import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test-setup.ts'],
    // The files share their workers' module cache (each still gets a fresh jsdom): importing
    // React, Testing Library and the console again for each of ~50 files took about 60 % of the
    // project's time. Tests undo what they change globally (vi.unstubAllGlobals, cleanup).
    isolate: false,
  },
});
