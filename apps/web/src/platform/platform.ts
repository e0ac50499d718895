/**
 * The browser APIs the console reaches, behind small injected interfaces (timers, clock, fetch,
 * network status, alert, reload, logging, the launch address, the locks and channels shared
 * with the browser's other tabs, the realtime service). Logic receives a {@link Platform}; only
 * `browserPlatform` (`browser-platform.ts`) touches the globals.
 */
import type { AttentionPlatform } from '../attention/attention-port';
import type { RealtimePort } from '../realtime/realtime-port';
import type { KeyValueStorage } from './key-value-storage';
import type { BrowserTabs } from './tabs';

/** An opaque handle of a scheduled timer. */
export type TimerHandle = number;

/** `setTimeout`/`setInterval` and their `clear…`, injectable so tests drive time. */
export interface Timers {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(callback: () => void, intervalMs: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

/** Wall-clock time in milliseconds since the epoch (`Date.now`). */
export interface Clock {
  now(): number;
}

/** The browser's network status (`navigator.onLine` and the online/offline events). */
export interface NetworkStatus {
  isOnline(): boolean;
  /** Calls `listener` whenever the status may have changed; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** Where the console writes diagnostics. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** `fetch` as the API client uses it. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Everything the console needs from the browser. */
export interface Platform {
  readonly fetch: FetchLike;
  readonly timers: Timers;
  readonly clock: Clock;
  readonly network: NetworkStatus;
  readonly log: Logger;
  /** The page's address when the console started (`?url=tel:/…` opens New Call; spec §2). */
  readonly launchUrl: string;
  /** `window.alert`: the spec's alerts (connection error, microphone). */
  alert(message: string): void;
  /** `location.reload`: after login, and on a 401 once the user was loaded. */
  reload(): void;
  /** `navigator.clipboard.writeText` (Copy Error Logs). */
  copyText(text: string): Promise<void>;
  /** What this browser remembers (`localStorage`): the chosen audio devices. */
  readonly storage: KeyValueStorage;
  /**
   * Reaching an agent who is not looking: notifications, page focus, the autoplay policy, the
   * tel: handler and the desktop wrapper.
   */
  readonly attention: AttentionPlatform;
  /** The Web Locks API and `BroadcastChannel` shared with this browser's other tabs. */
  readonly tabs: BrowserTabs;
  /** The realtime service (pusher-js): teammates' and the agent's own status, live. */
  readonly realtime: RealtimePort;
}
