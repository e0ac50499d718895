import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where the server listens in development (`npm run dev -w @leadline/server`). */
const SERVER = 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
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
