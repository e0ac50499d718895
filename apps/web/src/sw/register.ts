/**
 * Registers the console's service worker (see `service-worker.ts`) once the page has loaded, in
 * production builds only (the development server has no `/sw.js`). A browser without service
 * workers, or one that refuses it, runs the console as before: only offline reloads need it.
 */
export function registerServiceWorker(
  win: Window,
  log: (message: string) => void,
  enabled: boolean = import.meta.env.PROD,
): void {
  const container = win.navigator.serviceWorker as ServiceWorkerContainer | undefined;
  if (!enabled || !container) return;
  const register = () => {
    container.register('/sw.js').catch((error: unknown) => {
      log(`The offline shell is not available: ${String(error)}`);
    });
  };
  if (win.document.readyState === 'complete') register();
  else win.addEventListener('load', register, { once: true });
}
