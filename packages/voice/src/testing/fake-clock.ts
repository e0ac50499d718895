import type { Clock } from '../gateway/clock';
import type { CancelTimer, MonotonicClock, Scheduler } from '../media/platform';

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * A manual clock and scheduler for tests: time moves only in `advance`, which runs every timer
 * that comes due, in time order, at its due time. It serves the media loop (`MonotonicClock`,
 * `Scheduler`) and the signalling gateway (`Clock`, whose timer handles are the cancel functions
 * of `after`).
 */
export class FakeClock implements MonotonicClock, Scheduler, Clock {
  private time: number;
  private order = 0;
  private readonly timers = new Set<PendingTimer>();

  /** Starts at `startMs`. */
  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  after(delayMs: number, callback: () => void): CancelTimer {
    const timer: PendingTimer = {
      at: this.time + Math.max(0, delayMs),
      order: this.order++,
      callback,
    };
    this.timers.add(timer);
    return () => {
      this.timers.delete(timer);
    };
  }

  setTimeout(fn: () => void, ms: number): unknown {
    return this.after(ms, fn);
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'function') (handle as CancelTimer)();
  }

  setInterval(fn: () => void, ms: number): unknown {
    // As Node's, an interval of 0 repeats every millisecond (and `advance` cannot spin forever).
    const periodMs = Math.max(1, ms);
    let cancel: CancelTimer;
    const repeat = (): void => {
      cancel = this.after(periodMs, repeat);
      fn();
    };
    cancel = this.after(periodMs, repeat);
    return () => cancel();
  }

  clearInterval(handle: unknown): void {
    this.clearTimeout(handle);
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing due timers (including ones they schedule) on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.nextDue(end);
      if (!next) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.at);
      next.callback();
    }
    this.time = end;
  }

  /**
   * Moves time forward by `ms` without firing anything, as a thread busy elsewhere would see
   * it: the timers that came due meanwhile fire late, at the next `advance`.
   */
  stall(ms: number): void {
    this.time += ms;
  }

  private nextDue(end: number): PendingTimer | undefined {
    let next: PendingTimer | undefined;
    for (const timer of this.timers) {
      if (timer.at > end) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order))
        next = timer;
    }
    return next;
  }
}
