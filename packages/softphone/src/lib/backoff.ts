/**
 * Exponential back-off as an injectable policy: delay n = min(max, min × factor^n), spread by
 * `jitter` (0..1: a fraction of the delay added or removed at random). One helper, reused by
 * the signalling reconnect (spec defaults: min 100, max 10,000, factor 2, jitter 0..1) and the
 * media reconnect (min 1, max 30,000, factor 1.1, jitter 0.5).
 */
export interface BackoffOptions {
  minMs: number;
  maxMs: number;
  factor: number;
  jitter: number;
}

/** A back-off sequence. */
export class Backoff {
  #attempt = 0;

  constructor(
    private readonly options: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** How many delays have been handed out since the last reset. */
  get attempts(): number {
    return this.#attempt;
  }

  /** The next delay in ms. */
  next(): number {
    const delayMs = backoffDelayMs(this.options, this.#attempt, this.random);
    this.#attempt += 1;
    return delayMs;
  }

  /** Starts again from the first delay. */
  reset(): void {
    this.#attempt = 0;
  }
}

/**
 * The delay before retry number `attempt` (0: the first) of a back-off: min(max, min ×
 * factor^attempt), spread by the jitter with one draw of `random`.
 */
export function backoffDelayMs(
  options: BackoffOptions,
  attempt: number,
  random: () => number = Math.random,
): number {
  const { minMs, maxMs, factor, jitter } = options;
  const base = Math.min(maxMs, minMs * factor ** attempt);
  const spread = jitter > 0 ? (random() * 2 - 1) * jitter * base : 0;
  return Math.max(0, Math.min(maxMs, Math.round(base + spread)));
}
