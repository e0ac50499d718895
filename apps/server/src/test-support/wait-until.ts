/**
 * Bounded waiting for tests that run the real engine: poll a condition until it holds or a
 * deadline passes, never a fixed sleep. A busy two-core machine runs CI, so every wait has a
 * generous bound and fails with a message saying what it waited for.
 */

/** How long a real-engine test waits for an event, a frame, a row or audio by default. */
export const REAL_WAIT_MS = 15_000;

/** How often `waitUntil` polls. */
const POLL_MS = 25;

/** Thrown when a bounded wait runs out. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/** Resolves after `ms` (internal to polling; tests wait for conditions, not for time). */
export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns something other than `undefined` and resolves with that;
 * rejects with a `WaitTimeoutError` naming `what` (and `detail()` if given) after `timeoutMs`.
 */
export async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = REAL_WAIT_MS,
  detail?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const more = detail ? `: ${detail()}` : '';
      throw new WaitTimeoutError(`waited ${timeoutMs} ms for ${what}${more}`);
    }
    await pause(POLL_MS);
  }
}
