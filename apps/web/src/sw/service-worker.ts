/**
 * The console's service worker (built to `/sw.js` by the plugin in vite.config.ts, which puts
 * the build's file list in place of {@link PRECACHE_TOKEN}). It keeps the console's shell for
 * offline reloads; the rules are in `cache-policy.ts`. The page registers it in production
 * builds only.
 */
import {
  PRECACHE_TOKEN,
  SHELL_PATH,
  buildVersion,
  cacheNameOf,
  staleCaches,
  strategyFor,
} from './cache-policy';

// The few service-worker types used here (the app compiles against the DOM library, which has
// none of them).
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerScope {
  readonly location: Location;
  readonly caches: CacheStorage;
  skipWaiting(): Promise<void>;
  readonly clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}

const scope = self as unknown as WorkerScope;
const FILES = JSON.parse(PRECACHE_TOKEN) as string[];
const CACHE = cacheNameOf(buildVersion(FILES));

scope.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await scope.caches.open(CACHE);
      await cache.addAll([SHELL_PATH, ...FILES]);
      await scope.skipWaiting();
    })(),
  );
});

scope.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const names = await scope.caches.keys();
      await Promise.all(staleCaches(names, CACHE).map((name) => scope.caches.delete(name)));
      await scope.clients.claim();
    })(),
  );
});

scope.addEventListener('fetch', (event) => {
  const strategy = strategyFor(event.request, scope.location.origin);
  if (strategy === 'shell') event.respondWith(shell(event.request));
  else if (strategy === 'asset') event.respondWith(asset(event.request));
});

/** A page: the network's answer (kept as the new shell), or the kept shell when it fails. */
async function shell(request: Request): Promise<Response> {
  const cache = await scope.caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(SHELL_PATH, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(SHELL_PATH);
    if (kept) return kept;
    throw error;
  }
}

/** A hashed build file: from the cache, else from the network (and kept). */
async function asset(request: Request): Promise<Response> {
  const cache = await scope.caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
