/**
 * Registers the console's service worker (see `service-worker.ts`) once the page has loaded, the
 * console has shown its first view (`shown`: login or the console) and the browser is idle, in
 * production builds only (the development server has no `/sw.js`). Installing the worker
 * downloads the whole build into its cache; done during a cold load it competes with the session
 * check and the first render (the app-load benchmark measured the login page 20–25 % later with
 * it). A browser without service workers, or one that refuses it, runs the console as before:
 * only offline reloads need it.
 */
/** The longest the registration waits for the browser to be idle once the first view shows. */
const IDLE_TIMEOUT_MS = 2_000;

export function registerServiceWorker(
  win: Window,
  log: (message: string) => void,
  shown: Promise<unknown> = Promise.resolve(),
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
  const whenIdle = () => {
    if (typeof win.requestIdleCallback === 'function') {
      win.requestIdleCallback(register, { timeout: IDLE_TIMEOUT_MS });
    } else win.setTimeout(register, 0);
  };
  void Promise.all([loaded, shown.catch(() => undefined)]).then(whenIdle);
}
