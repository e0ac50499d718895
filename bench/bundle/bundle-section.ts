/**
 * The `bundle-size` section of docs/benchmarks.md, rendered from the sizes
 * bench/bundle/bundle-size.ts measured (stored in bench/results/sections/bundle-size.json).
 * Pure: no clock, no machine, no files.
 */
import { round } from '../lib/stats';

/** Minified and gzip sizes (bytes). */
export interface BundleSize {
  minified: number;
  gzip: number;
}

/** A file of the console's build and its sizes. */
export interface BuiltFile extends BundleSize {
  /** Its path in apps/web/dist, e.g. `assets/index-AbCd1234.js`. */
  file: string;
}

/** What the bundle-size benchmark measured. */
export interface BundleSectionData {
  /** ISO date (YYYY-MM-DD) of the run. */
  date: string;
  node: string;
  twilioVersion: string;
  ours: BundleSize;
  twilio: BundleSize;
  /** Each SDK's phone-adapter chunk in the console's build. */
  ourChunk: BuiltFile;
  twilioChunk: BuiltFile;
  /** The login page's files (what index.html loads), and the lazy chunks. */
  login: BuiltFile[];
  lazy: BuiltFile[];
  loginHasCountryData: boolean;
  /** The lazy chunks holding the phone input's country data. */
  lazyWithCountryData: BuiltFile[];
}

const kb = (bytes: number): string => `${round(bytes / 1000, 1)} KB`;

/** A built file's name without its content hash: `assets/index-AbCd1234.js` → `index.js`. */
export const chunkName = (file: string): string =>
  file.replace(/^assets\//, '').replace(/-[\w-]{8}\./, '.');

/** The section's markdown. */
export function renderBundleSection(data: BundleSectionData): string {
  const { ours, twilio, ourChunk, twilioChunk, login, lazy } = data;
  const ratio = ours.gzip / twilio.gzip;
  const loginGzip = login.reduce((sum, f) => sum + f.gzip, 0);
  const lines = [
    '## Bundle sizes',
    '',
    `Command: \`npx tsx bench/bundle/bundle-size.ts\` (run ${data.date}, Node ${data.node}). Minified, then gzip level 9.`,
    '',
    '### Softphone SDK next to the official Voice SDK',
    '',
    'Each bundled the same way in the same run: esbuild from the package entry with all its dependencies, minified ES module for browsers. Target: ours at most one third of the official one.',
    '',
    '| SDK | minified | gzip | gzip / official |',
    '|---|---:|---:|---:|',
    `| \`@twilio/voice-sdk\` ${data.twilioVersion} (reference) | ${kb(twilio.minified)} | ${kb(twilio.gzip)} | 1× |`,
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
    `The login page loads only the entry files; the lazy chunks load with the panels that use them. The login page ${data.loginHasCountryData ? '**does**' : 'does not'} contain the phone input's country data; ${data.lazyWithCountryData.map((f) => `\`${chunkName(f.file)}\``).join(', ') || 'no chunk'} does.`,
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
  return lines.join('\n');
}
