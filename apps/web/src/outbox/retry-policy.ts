/**
 * The outbox's retry back-off as an injected policy: exponential with full jitter (each delay is
 * drawn uniformly between 0 and the capped exponential), so many consoles coming back online at
 * once do not retry in step.
 */
import { OUTBOX_BACKOFF } from './outbox-constants';

/** Decides how long to wait before the next attempt of an entry. */
export interface RetryPolicy {
  /**
   * The delay before retry number `retryIndex + 1` (0 for the first retry after a failure),
   * given a `random()` in [0, 1).
   */
  delayMs(retryIndex: number, random: () => number): number;
}

/** The shape of an exponential back-off. */
export interface BackoffOptions {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
}

/** Exponential back-off with full jitter: `random() × min(max, initial × factor^n)`, floored. */
export function fullJitterBackoff(options: BackoffOptions): RetryPolicy {
  return {
    delayMs(retryIndex, random) {
      const capMs = Math.min(
        options.maxDelayMs,
        options.initialDelayMs * options.factor ** Math.max(0, retryIndex),
      );
      return Math.floor(random() * capMs);
    },
  };
}

/** The outbox's default policy: from 1000 ms, factor 2, at most 30,000 ms, full jitter. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = fullJitterBackoff(OUTBOX_BACKOFF);
