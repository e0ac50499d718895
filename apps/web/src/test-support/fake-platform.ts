/**
 * The shared test double of {@link Platform}: a manual clock that drives timers, recorded
 * alerts, reloads and log lines, and a switchable network status. Tests advance time with
 * `clock.tick(ms)`; nothing here touches real timers.
 */
import {
  createFakeAttention,
  type FakeAttention,
  type FakeAttentionOptions,
} from './fake-attention';
import { FakeRealtime } from './fake-realtime';
import { MemoryKeyValueStorage } from '../platform/key-value-storage';
import type {
  Clock,
  FetchLike,
  Logger,
  NetworkStatus,
  Platform,
  TimerHandle,
  Timers,
} from '../platform/platform';
import { NO_SHARED_TABS, type BrowserTabs } from '../platform/tabs';

interface ScheduledTimer {
  readonly handle: TimerHandle;
  dueMs: number;
  readonly intervalMs: number | null;
  readonly callback: () => void;
}

/** A manual clock implementing {@link Timers} and {@link Clock}. */
export class FakeClock implements Timers, Clock {
  #nowMs: number;
  #nextHandle = 1;
  readonly #timers = new Map<TimerHandle, ScheduledTimer>();

  constructor(startMs = Date.UTC(2025, 0, 6, 9, 0, 0)) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    return this.#schedule(callback, delayMs, null);
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle);
  }

  setInterval(callback: () => void, intervalMs: number): TimerHandle {
    return this.#schedule(callback, intervalMs, Math.max(1, intervalMs));
  }

  clearInterval(handle: TimerHandle): void {
    this.#timers.delete(handle);
  }

  /** How many timers are scheduled. */
  get pendingCount(): number {
    return this.#timers.size;
  }

  /** Advances time by `ms`, firing due timers in order (intervals repeatedly). */
  tick(ms: number): void {
    const targetMs = this.#nowMs + ms;
    for (;;) {
      const next = this.#nextDue(targetMs);
      if (!next) break;
      this.#nowMs = next.dueMs;
      if (next.intervalMs === null) this.#timers.delete(next.handle);
      else next.dueMs += next.intervalMs;
      next.callback();
    }
    this.#nowMs = targetMs;
  }

  #nextDue(limitMs: number): ScheduledTimer | undefined {
    let best: ScheduledTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (timer.dueMs <= limitMs && (!best || timer.dueMs < best.dueMs)) best = timer;
    }
    return best;
  }

  #schedule(callback: () => void, delayMs: number, intervalMs: number | null): TimerHandle {
    const handle = this.#nextHandle++;
    this.#timers.set(handle, {
      handle,
      dueMs: this.#nowMs + Math.max(0, delayMs),
      intervalMs,
      callback,
    });
    return handle;
  }
}

/** A network status a test can switch. */
export class FakeNetwork implements NetworkStatus {
  #online = true;
  readonly #listeners = new Set<() => void>();

  isOnline(): boolean {
    return this.#online;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Goes online or offline and notifies subscribers. */
  set(online: boolean): void {
    this.#online = online;
    for (const listener of this.#listeners) listener();
  }
}

/** A {@link Platform} for tests, with its recordings. */
export interface FakePlatform extends Platform {
  readonly clock: FakeClock;
  readonly timers: FakeClock;
  readonly network: FakeNetwork;
  /** Every `alert` message, in order. */
  readonly alerts: string[];
  /** Every logged line (`info`/`error` prefix, message). */
  readonly logs: { level: keyof Logger; message: string }[];
  /** How many times `reload` was called. */
  readonly reloadCount: number;
  /** Every text copied to the clipboard, in order. */
  readonly copied: string[];
  readonly storage: MemoryKeyValueStorage;
  readonly attention: FakeAttention;
  readonly realtime: FakeRealtime;
}

/** Options of {@link createFakePlatform}. */
export interface FakePlatformOptions {
  /** The page's address at start (`http://console.test/` by default). */
  readonly launchUrl?: string;
  /** The notification permission, autoplay policy, desktop wrapper… (all permissive by default). */
  readonly attention?: FakeAttentionOptions;
  /**
   * The locks and channels shared with other tabs: a `FakeBrowser`'s tab (`fake-tabs.ts`) for
   * tests of several tabs; by default the tab stands alone ({@link NO_SHARED_TABS}).
   */
  readonly tabs?: BrowserTabs;
  /** The realtime service (a fresh {@link FakeRealtime}, never connected until a test says so). */
  readonly realtime?: FakeRealtime;
}

/** Creates a fake platform around a fetch (usually `FakeApi.fetch`). */
export function createFakePlatform(
  fetch: FetchLike,
  options: FakePlatformOptions = {},
): FakePlatform {
  const clock = new FakeClock();
  const alerts: string[] = [];
  const logs: { level: keyof Logger; message: string }[] = [];
  let reloadCount = 0;
  const copied: string[] = [];
  return {
    fetch,
    clock,
    timers: clock,
    network: new FakeNetwork(),
    alerts,
    logs,
    launchUrl: options.launchUrl ?? 'http://console.test/',
    get reloadCount() {
      return reloadCount;
    },
    log: {
      info: (message) => logs.push({ level: 'info', message }),
      error: (message) => logs.push({ level: 'error', message }),
    },
    alert: (message) => alerts.push(message),
    reload: () => {
      reloadCount += 1;
    },
    copied,
    storage: new MemoryKeyValueStorage(),
    tabs: options.tabs ?? NO_SHARED_TABS,
    copyText: (text) => {
      copied.push(text);
      return Promise.resolve();
    },
    attention: createFakeAttention(options.attention),
    realtime: options.realtime ?? new FakeRealtime(),
  };
}
