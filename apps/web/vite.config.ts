import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { PRECACHE_TOKEN } from './src/sw/cache-policy';

/** Where the server listens in development (`npm run dev -w @leadline/server`). */
const SERVER = 'http://localhost:3000';

const SERVICE_WORKER_FILE = 'sw.js';

/**
 * Builds the service worker (`src/sw/service-worker.ts`) to `/sw.js` beside the console, and
 * writes the build's file list into it (in place of its precache token), so the worker keeps
 * exactly this build's shell.
 */
function serviceWorker(): Plugin {
  return {
    name: 'leadline-service-worker',
    apply: 'build',
    buildStart() {
      this.emitFile({
        type: 'chunk',
        id: fileURLToPath(new URL('./src/sw/service-worker.ts', import.meta.url)),
        fileName: SERVICE_WORKER_FILE,
      });
    },
    generateBundle(_options, bundle) {
      const worker = bundle[SERVICE_WORKER_FILE];
      if (worker?.type !== 'chunk') throw new Error('The service worker was not built.');
      const files = Object.keys(bundle)
        .filter((name) => name !== SERVICE_WORKER_FILE && name !== 'index.html')
        .filter((name) => !name.endsWith('.map'))
        .map((name) => `/${name}`)
        .sort();
      const token = new RegExp(`(["'\`])${PRECACHE_TOKEN}\\1`, 'g');
      if (!token.test(worker.code)) throw new Error('The service worker has no precache token.');
      worker.code = worker.code.replace(token, JSON.stringify(JSON.stringify(files)));
    },
  };
}

export default defineConfig({
  plugins: [react(), serviceWorker()],
  server: {
    proxy: {
      '/api': SERVER,
      '/apps': SERVER,
      '/twilio': SERVER,
      '/healthz': SERVER,
      '/signal': { target: SERVER, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
});
