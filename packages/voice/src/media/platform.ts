/**
 * The platform services the media loop and the call legs need, behind small interfaces so that
 * tests drive them with a fake clock.
 */

/** A monotonic clock in milliseconds (`performance.now()` in production). */
export interface MonotonicClock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  now(): number;
}

/** Cancels a timer made by a {@link Scheduler}; calling it again does nothing. */
export type CancelTimer = () => void;

/** One-shot timers. */
export interface Scheduler {
  /** Calls `callback` once after `delayMs` (0 or more) milliseconds. */
  after(delayMs: number, callback: () => void): CancelTimer;
}

/** The real monotonic clock. */
export const performanceClock: MonotonicClock = { now: () => performance.now() };

/** Timers of the Node.js event loop. */
export const nodeScheduler: Scheduler = {
  after(delayMs, callback) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    return () => clearTimeout(handle);
  },
};
