/**
 * The real browser {@link Platform}: the one place that hands the console the browser's globals
 * (timers, clock, fetch, network status, alert, reload, console logging, the launch address,
 * storage, attention, tabs and the realtime client).
 */
import { browserAttention } from '../attention/browser-attention';
import { browserRealtime } from '../realtime/browser-realtime';
import { browserKeyValueStorage } from './key-value-storage';
import type { Logger, Platform } from './platform';
import { browserTabs } from './tabs';

/** The real browser platform. */
export function browserPlatform(win: Window = window): Platform {
  const log: Logger = {
    info: (message, ...details) => console.info(message, ...details),
    error: (message, ...details) => console.error(message, ...details),
  };
  return {
    fetch: (url, init) => win.fetch(url, init),
    timers: {
      setTimeout: (callback, delayMs) => win.setTimeout(callback, delayMs),
      clearTimeout: (handle) => win.clearTimeout(handle),
      setInterval: (callback, intervalMs) => win.setInterval(callback, intervalMs),
      clearInterval: (handle) => win.clearInterval(handle),
    },
    clock: { now: () => Date.now() },
    network: {
      isOnline: () => win.navigator.onLine,
      subscribe(listener) {
        win.addEventListener('online', listener);
        win.addEventListener('offline', listener);
        return () => {
          win.removeEventListener('online', listener);
          win.removeEventListener('offline', listener);
        };
      },
    },
    log,
    launchUrl: win.location.href,
    alert: (message) => win.alert(message),
    reload: () => win.location.reload(),
    copyText: (text) => win.navigator.clipboard.writeText(text),
    storage: browserKeyValueStorage(win),
    attention: browserAttention(win),
    tabs: browserTabs(win),
    realtime: browserRealtime(log),
  };
}
