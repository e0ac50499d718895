import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The media worker's entry module, found next to the module that asks.
 *
 * - From sources (Vitest, tsx), `moduleUrl` ends in `.ts`: the entry is `./media-worker.ts`.
 * - From the server's esbuild bundle, `moduleUrl` is `dist/main.js`: the entry is
 *   `./media-worker.js`, which the build emits next to it (entry point `media-worker`).
 */
export function defaultMediaWorkerUrl(moduleUrl: string = import.meta.url): URL {
  return new URL(moduleUrl.endsWith('.ts') ? './media-worker.ts' : './media-worker.js', moduleUrl);
}

/**
 * Starts a worker thread on `entry`. A `.ts` entry is run through tsx: the thread starts on a tiny
 * ES module that registers tsx's loader and then imports the entry. (On Node 20,
 * `execArgv: ['--import', 'tsx']` does not reach a worker's module loading: its entry fails with
 * ERR_UNKNOWN_FILE_EXTENSION, so the loader is registered from inside the thread instead.)
 */
export function spawnMediaWorker(entry: URL, options: WorkerOptions = {}): Worker {
  return new Worker(entry.pathname.endsWith('.ts') ? tsxBootstrap(entry) : entry, options);
}

function tsxBootstrap(entry: URL): URL {
  // Resolved here, where tsx is a dependency; a data: module cannot resolve bare specifiers.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const source = [
    `import { register } from ${JSON.stringify(tsxApi)};`,
    'register();',
    `await import(${JSON.stringify(entry.href)});`,
  ].join('\n');
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}
