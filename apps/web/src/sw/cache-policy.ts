/**
 * What the console's service worker does with each request, as pure rules (the worker itself is
 * `service-worker.ts`). The worker keeps the console's shell (the page and its built assets) so
 * that a reload while the network is down still opens the console, which then waits for the
 * server with the agent's unsent work kept in its outbox. It never touches the API: every
 * request to the server's routes goes to the network as if there were no worker.
 */

/** Replaced at build time by the JSON list of the build's files (see vite.config.ts). */
export const PRECACHE_TOKEN = '__LEADLINE_PRECACHE__';

/** Paths the worker never answers: the server's routes, and the worker's own script. */
export const NETWORK_ONLY_PREFIXES = [
  '/api/',
  '/apps/',
  '/twilio/',
  '/signal',
  '/healthz',
  '/sw.js',
] as const;

/** Where the built files live (their names carry a content hash, so they never change). */
export const ASSET_PREFIX = '/assets/';

/** The cached page every navigation falls back to. */
export const SHELL_PATH = '/';

/**
 * How a request is served: `shell` (a page: network first, the cached page when the network
 * fails), `asset` (a hashed build file: cache first), or `network` (not the worker's business).
 */
export type Strategy = 'shell' | 'asset' | 'network';

/** The parts of a request the rules look at. */
export interface RequestFacts {
  readonly method: string;
  readonly url: string;
  /** `Request.mode`: `navigate` for a page load. */
  readonly mode: string;
}

/** The strategy for `request` on a console served from `origin`. */
export function strategyFor(request: RequestFacts, origin: string): Strategy {
  if (request.method !== 'GET') return 'network';
  // `Request.url` in a service worker is the browser's own parsed, absolute URL (dot segments
  // and backslashes already resolved): it is only classified here, by its origin and path, and
  // never used to reach anywhere.
  const url = new URL(request.url);
  if (url.origin !== origin) return 'network';
  if (NETWORK_ONLY_PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) return 'network';
  if (request.mode === 'navigate') return 'shell';
  if (url.pathname.startsWith(ASSET_PREFIX)) return 'asset';
  return 'network';
}

/** The cache of one build's shell. */
export function cacheNameOf(version: string): string {
  return `leadline-shell-${version}`;
}

/** The caches an older build left behind (deleted when a new worker takes over). */
export function staleCaches(names: readonly string[], current: string): string[] {
  return names.filter((name) => name.startsWith('leadline-shell-') && name !== current);
}

/**
 * The build's version: a short hash of its file names (which carry content hashes), so a new
 * build gets a new cache and an unchanged one keeps its cache.
 */
export function buildVersion(files: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const char of [...files].sort().join('\n')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}
