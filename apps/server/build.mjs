// Bundles the server (and the media worker it starts) into dist/ with esbuild. SERVER_DIST names
// another folder beside it (e.g. `dist-mine`: a private build for one's own e2e runs while others
// use dist/; the e2e specs start `apps/server/$SERVER_DIST/main.js`).
// Workspace packages (@leadline/*) are compiled in; npm packages stay external and load from
// node_modules at run time.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

const here = new URL('.', import.meta.url);
const outdir = process.env.SERVER_DIST || 'dist';
if (!/^dist(-[\w-]+)?$/.test(outdir))
  throw new Error(`SERVER_DIST must be dist or dist-<name>, not ${outdir}`);
rmSync(new URL(outdir, here), { recursive: true, force: true });

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
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  plugins: [externalNpmPackages],
  logLevel: 'warning',
});
// The voice engine's audio assets (sandbox voice clips), found at run time beside the bundle.
cpSync(new URL('../../packages/voice/assets/', here), new URL(`${outdir}/assets/`, here), {
  recursive: true,
  filter: (source) => !source.endsWith('.md'),
});
console.log(`built apps/server/${outdir}`);
