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
import { publishSection } from '../lib/sections';
import { chunkName, type BuiltFile } from './bundle-section';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The official SDK's ES module entry (what a bundler picks for `import`). */
const twilioEntry = fileURLToPath(import.meta.resolve('@twilio/voice-sdk'));

const gzipBytes = (code: string | Uint8Array): number => gzipSync(code, { level: 9 }).length;

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

// The console: build it, then read what index.html loads and the lazy chunks.
execFileSync('npm', ['run', 'build', '-w', '@leadline/web'], { cwd: repoRoot, stdio: 'ignore' });
const dist = join(repoRoot, 'apps/web/dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const loginFiles = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
  (m) => m[1]!,
);
const assets = readdirSync(join(dist, 'assets')).filter((f) => /\.(js|css)$/.test(f));
const sizeOf = (file: string): BuiltFile => {
  const bytes = readFileSync(join(dist, file));
  return { file, minified: bytes.length, gzip: gzipBytes(bytes) };
};
const login = loginFiles.map(sizeOf);
const lazy = assets
  .map((f) => `assets/${f}`)
  .filter((f) => !loginFiles.includes(f))
  .map(sizeOf);
// libphonenumber-js's metadata holds every country's calling code table under this key.
const COUNTRY_DATA_MARKER = 'country_calling_codes';
const loginHasCountryData = login.some((f) =>
  readFileSync(join(dist, f.file), 'utf8').includes(COUNTRY_DATA_MARKER),
);
const lazyWithCountryData = lazy.filter((f) =>
  readFileSync(join(dist, f.file), 'utf8').includes(COUNTRY_DATA_MARKER),
);
/** The lazy chunk of each SDK's phone adapter in the console's build (`VOICE_SDK` picks one). */
const sdkChunk = (prefix: string) => {
  const found = lazy.find((f) => chunkName(f.file) === `${prefix}.js`);
  if (!found) throw new Error(`The console's build has no ${prefix} chunk.`);
  return found;
};
const ourChunk = sdkChunk('leadline-adapter');
const twilioChunk = sdkChunk('twilio-adapter');

const markdown = publishSection('bundle-size', {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  twilioVersion: twilioPackage.version,
  ours,
  twilio,
  ourChunk,
  twilioChunk,
  login,
  lazy,
  loginHasCountryData,
  lazyWithCountryData,
});
console.log(markdown);
console.log('\nwrote the bundle-size section of docs/benchmarks.md');
