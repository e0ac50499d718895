/**
 * The type-to-find buffer (spec sections 2 and 9): letters typed in quick succession add up;
 * after 700 ms without a key the buffer starts again. Time comes from injected {@link Timers}.
 */
import { TYPE_TO_FIND_RESET_MS } from '../constants';
import type { Timers, TimerHandle } from '../platform/platform';

/** Timers of the page, for when none are injected. */
export const windowTimers: Timers = {
  setTimeout: (callback, delayMs) => window.setTimeout(callback, delayMs),
  clearTimeout: (handle) => window.clearTimeout(handle),
  setInterval: (callback, intervalMs) => window.setInterval(callback, intervalMs),
  clearInterval: (handle) => window.clearInterval(handle),
};

/** See the module comment. */
export class TypeAhead {
  readonly #timers: Timers;
  readonly #resetMs: number;
  #typed = '';
  #timer: TimerHandle | null = null;

  constructor(timers: Timers, resetMs: number = TYPE_TO_FIND_RESET_MS) {
    this.#timers = timers;
    this.#resetMs = resetMs;
  }

  /** What has been typed since the last pause. */
  get typed(): string {
    return this.#typed;
  }

  /** Adds `char` and returns the whole buffer; the 700 ms restart from now. */
  type(char: string): string {
    this.#typed += char;
    this.#clearTimer();
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = null;
      this.#typed = '';
    }, this.#resetMs);
    return this.#typed;
  }

  /** Forgets what was typed. */
  reset(): void {
    this.#clearTimer();
    this.#typed = '';
  }

  #clearTimer(): void {
    if (this.#timer === null) return;
    this.#timers.clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** Whether a key press is a character for type-to-find (a printable key, no Ctrl/Alt/⌘). */
export function isTypeAheadKey(event: {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}): boolean {
  return event.key.length === 1 && !event.ctrlKey && !event.altKey && !event.metaKey;
}
