/**
 * The server's clock: what flows, sweepers and presence read the time and set timers by. It is
 * passed in, so tests drive it (`test-support/manual-clock.ts`) and no decision reads the
 * wall clock past it.
 */
export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The wall clock and the process's timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
