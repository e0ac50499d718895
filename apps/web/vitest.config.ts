import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test-support/setup.ts'],
    // The files share their workers' module cache (each still gets a fresh jsdom): importing
    // React, Testing Library and the console again for each of ~50 files took about 60 % of the
    // project's time. Tests undo what they change globally (vi.unstubAllGlobals, cleanup).
    isolate: false,
    // A deadline, not a timing: a test that types into the country list or renders the console
    // can take more than the default 5 s on CI's two loaded cores (seen: phone-input, 5.09 s).
    testTimeout: 20_000,
  },
});
