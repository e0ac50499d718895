// Bundles the server (and the media worker it starts) into dist/ with esbuild.
// Workspace packages (@leadline/*) are compiled in; npm packages stay external and load from
// node_modules at run time.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

const here = new URL('.', import.meta.url);
rmSync(new URL('dist', here), { recursive: true, force: true });

/** Keeps every bare import external except our own workspace packages. */
const externalNpmPackages = {
  name: 'external-npm-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@leadline/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

await build({
  entryPoints: {
    main: 'src/main.ts',
    'media-worker': '../../packages/voice/src/media/media-worker.ts',
  },
  absWorkingDir: new URL('.', here).pathname,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  plugins: [externalNpmPackages],
  logLevel: 'warning',
});
// The voice engine's audio assets (sandbox voice clips), found at run time beside the bundle.
cpSync(new URL('../../packages/voice/assets/', here), new URL('dist/assets/', here), {
  recursive: true,
  filter: (source) => !source.endsWith('.md'),
});
console.log('built apps/server/dist');
