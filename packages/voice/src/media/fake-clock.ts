import type { CancelTimer, MonotonicClock, Scheduler } from './platform';

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * A manual clock and scheduler for tests: time moves only in `advance`, which runs every timer
 * that comes due, in time order, at its due time.
 */
export class FakeClock implements MonotonicClock, Scheduler {
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
      this.time = next.at;
      next.callback();
    }
    this.time = end;
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
