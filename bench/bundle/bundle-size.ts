/**
 * Bundle sizes (`npm run bench`, or `npx tsx bench/bundle/bundle-size.ts`): what the browser
 * downloads, minified and gzip-compressed. Writes its section of docs/benchmarks.md.
 *
 * - Our softphone SDK next to the official `@twilio/voice-sdk`, each bundled the same way in the
 *   same run: esbuild from the package's entry with every dependency, minified, ES module for
 *   browsers, gzip level 9. The SDK's target is at most one third of the official one.
 * - The console's production build (`apps/web/dist`, built by `npm run build -w @leadline/web`
 *   first): the login page's files (the entry script and stylesheet) and each lazy chunk, such
 *   as the New Call panel that carries the international phone input and its country data, which
 *   must not be part of the login page.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { writeSection } from '../lib/report';
import { round } from '../lib/stats';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The official SDK's ES module entry (what a bundler picks for `import`). */
const twilioEntry = fileURLToPath(import.meta.resolve('@twilio/voice-sdk'));

const gzipBytes = (code: string | Uint8Array): number => gzipSync(code, { level: 9 }).length;
const kb = (bytes: number): string => `${round(bytes / 1000, 1)} KB`;

/** Minified and gzip sizes of one entry bundled with its dependencies. */
async function bundle(entry: string): Promise<{ minified: number; gzip: number }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzip: gzipBytes(code) };
}

const twilioPackage = JSON.parse(
  readFileSync(join(dirname(twilioEntry), '..', 'package.json'), 'utf8'),
) as { version: string };
const ours = await bundle(join(repoRoot, 'packages/softphone/src/index.ts'));
const twilio = await bundle(twilioEntry);
const ratio = ours.gzip / twilio.gzip;

// The console: build it, then read what index.html loads and the lazy chunks.
execFileSync('npm', ['run', 'build', '-w', '@leadline/web'], { cwd: repoRoot, stdio: 'ignore' });
const dist = join(repoRoot, 'apps/web/dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const loginFiles = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
  (m) => m[1]!,
);
const assets = readdirSync(join(dist, 'assets')).filter((f) => /\.(js|css)$/.test(f));
const sizeOf = (file: string) => {
  const bytes = readFileSync(join(dist, file));
  return { file, minified: bytes.length, gzip: gzipBytes(bytes) };
};
const login = loginFiles.map(sizeOf);
const lazy = assets
  .map((f) => `assets/${f}`)
  .filter((f) => !loginFiles.includes(f))
  .map(sizeOf);
const loginGzip = login.reduce((sum, f) => sum + f.gzip, 0);
// libphonenumber-js's metadata holds every country's calling code table under this key.
const COUNTRY_DATA_MARKER = 'country_calling_codes';
const loginHasCountryData = login.some((f) =>
  readFileSync(join(dist, f.file), 'utf8').includes(COUNTRY_DATA_MARKER),
);
const lazyWithCountryData = lazy.filter((f) =>
  readFileSync(join(dist, f.file), 'utf8').includes(COUNTRY_DATA_MARKER),
);
const chunkName = (file: string) => file.replace(/^assets\//, '').replace(/-[\w-]{8}\./, '.');
/** The lazy chunk of each SDK's phone adapter in the console's build (`VOICE_SDK` picks one). */
const sdkChunk = (prefix: string) => {
  const found = lazy.find((f) => chunkName(f.file) === `${prefix}.js`);
  if (!found) throw new Error(`The console's build has no ${prefix} chunk.`);
  return found;
};
const ourChunk = sdkChunk('leadline-adapter');
const twilioChunk = sdkChunk('twilio-adapter');

const lines = [
  '## Bundle sizes',
  '',
  `Command: \`npx tsx bench/bundle/bundle-size.ts\` (run ${new Date().toISOString().slice(0, 10)}, Node ${process.version}). Minified, then gzip level 9.`,
  '',
  '### Softphone SDK next to the official Voice SDK',
  '',
  'Each bundled the same way in the same run: esbuild from the package entry with all its dependencies, minified ES module for browsers. Target: ours at most one third of the official one.',
  '',
  '| SDK | minified | gzip | gzip / official |',
  '|---|---:|---:|---:|',
  `| \`@twilio/voice-sdk\` ${twilioPackage.version} (reference) | ${kb(twilio.minified)} | ${kb(twilio.gzip)} | 1× |`,
  `| \`@leadline/softphone\` | ${kb(ours.minified)} | ${kb(ours.gzip)} | ${round(ratio, 2)}× |`,
  '',
  "In the console's production build (Vite, each SDK with its phone adapter in the lazy chunk that `VOICE_SDK` loads; what an agent's browser downloads):",
  '',
  '| Chunk | minified | gzip | gzip / official |',
  '|---|---:|---:|---:|',
  `| \`twilio-adapter.js\` (official SDK, reference) | ${kb(twilioChunk.minified)} | ${kb(twilioChunk.gzip)} | 1× |`,
  `| \`leadline-adapter.js\` (our SDK) | ${kb(ourChunk.minified)} | ${kb(ourChunk.gzip)} | ${round(ourChunk.gzip / twilioChunk.gzip, 2)}× |`,
  '',
  '### The console (`apps/web/dist`)',
  '',
  `The login page loads only the entry files; the lazy chunks load with the panels that use them. The login page ${loginHasCountryData ? '**does**' : 'does not'} contain the phone input's country data; ${lazyWithCountryData.map((f) => `\`${chunkName(f.file)}\``).join(', ') || 'no chunk'} does.`,
  '',
  '| File | loaded | minified | gzip | gzip / login page |',
  '|---|---|---:|---:|---:|',
  ...login.map(
    (f) =>
      `| \`${chunkName(f.file)}\` | login page | ${kb(f.minified)} | ${kb(f.gzip)} | ${round(f.gzip / loginGzip, 2)}× |`,
  ),
  `| login page total (reference) | | | ${kb(loginGzip)} | 1× |`,
  ...lazy.map(
    (f) =>
      `| \`${chunkName(f.file)}\` | lazily | ${kb(f.minified)} | ${kb(f.gzip)} | ${round(f.gzip / loginGzip, 2)}× |`,
  ),
];
writeSection('bundle-size', lines.join('\n'));
console.log(lines.join('\n'));
console.log('\nwrote the bundle-size section of docs/benchmarks.md');
