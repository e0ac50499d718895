import type { Clock } from '../platform/platform';

/** A clock moved by hand: `tick(ms)` fires every timer due, in order. */
export class FakeClock implements Clock {
  #now = 0;
  #next = 1;
  readonly #timers = new Map<number, { at: number; fn: () => void; every: number | null }>();

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn, every: null });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  setInterval(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn, every: ms });
    return id;
  }

  clearInterval(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Pending timers (for assertions). */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing due timers. */
  tick(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let dueId: number | null = null;
      let dueAt = Infinity;
      for (const [id, t] of this.#timers) {
        if (t.at <= target && t.at < dueAt) {
          dueId = id;
          dueAt = t.at;
        }
      }
      if (dueId === null) break;
      const timer = this.#timers.get(dueId)!;
      this.#now = timer.at;
      if (timer.every === null) this.#timers.delete(dueId);
      else timer.at += timer.every;
      timer.fn();
    }
    this.#now = target;
  }
}
