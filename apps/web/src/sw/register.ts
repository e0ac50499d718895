/**
 * Registers the console's service worker (see `service-worker.ts`) once the page has loaded and
 * the console has shown its first view (`settled`: the session check answered), in production
 * builds only (the development server has no `/sw.js`). Installing the worker downloads the whole
 * build into its cache; done during a cold load it competes with the session check the login page
 * waits for (the app-load benchmark measured the login page ~25 % later with it). A browser
 * without service workers, or one that refuses it, runs the console as before: only offline
 * reloads need it.
 */
export function registerServiceWorker(
  win: Window,
  log: (message: string) => void,
  settled: Promise<unknown> = Promise.resolve(),
  enabled: boolean = import.meta.env.PROD,
): void {
  const container = win.navigator.serviceWorker as ServiceWorkerContainer | undefined;
  if (!enabled || !container) return;
  const register = () => {
    container.register('/sw.js').catch((error: unknown) => {
      log(`The offline shell is not available: ${String(error)}`);
    });
  };
  const loaded = new Promise<void>((resolve) => {
    if (win.document.readyState === 'complete') resolve();
    else win.addEventListener('load', () => resolve(), { once: true });
  });
  void Promise.all([loaded, settled.catch(() => undefined)]).then(register);
}
