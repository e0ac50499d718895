/**
 * The outbox wired to the browser: IndexedDB for the store, `crypto.randomUUID` for keys, the Web
 * Locks API between tabs, `Math.random` for jitter, and the platform's clock, timers and network
 * status. The only place in this folder that reaches browser globals.
 */
import type { Platform } from '../platform/platform';
import { IndexedDbOutboxStore } from './indexed-db-outbox-store';
import { MemoryOutboxStore } from './memory-outbox-store';
import { Outbox, type OutboxLock } from './outbox';
import type { OutboxStore } from './outbox-store';

/** The parts of `window` the outbox uses (a plain object in tests). */
export interface OutboxWindow {
  readonly indexedDB?: IDBFactory;
  readonly crypto: Pick<Crypto, 'getRandomValues'> & { randomUUID?: () => string };
  readonly navigator: { readonly locks?: Pick<LockManager, 'request'> };
}

/** The Web Locks API as an {@link OutboxLock}, or `undefined` where the browser has none. */
export function webLocks(navigator: OutboxWindow['navigator']): OutboxLock | undefined {
  const locks = navigator.locks;
  if (!locks) return undefined;
  return <T>(name: string, fn: () => Promise<T>): Promise<T> => locks.request(name, () => fn());
}

/**
 * A random UUID (v4): `crypto.randomUUID` where the page is a secure context, else the same
 * format from `crypto.getRandomValues` (plain-http pages have no `randomUUID`).
 */
export function randomKey(crypto: OutboxWindow['crypto']): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The store for this browser: IndexedDB, or memory where IndexedDB does not exist. */
export function browserOutboxStore(win: Pick<OutboxWindow, 'indexedDB'>): OutboxStore {
  return win.indexedDB ? new IndexedDbOutboxStore(win.indexedDB) : new MemoryOutboxStore();
}

/** The console's outbox in this browser. */
export function createBrowserOutbox(
  platform: Pick<Platform, 'clock' | 'timers' | 'network' | 'log'>,
  win: OutboxWindow = window,
): Outbox {
  return new Outbox({
    store: browserOutboxStore(win),
    clock: platform.clock,
    timers: platform.timers,
    network: platform.network,
    random: () => Math.random(),
    createKey: () => randomKey(win.crypto),
    lock: webLocks(win.navigator),
    log: platform.log,
  });
}
