/**
 * Login rate limiting: failed attempts are counted per e-mail and per client address over a
 * sliding window; past the limit every attempt is refused (429) until old failures age out.
 * A successful login clears the e-mail's count. Kept in memory (one server process).
 */

/** Defaults: 10 failures per 15 minutes. */
export const LOGIN_LIMIT = { maxFailures: 10, windowMs: 15 * 60_000 } as const;

/** The throttle. */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();
  /** When every key was last checked for failures that all aged out. */
  #sweptAt: number;

  constructor(
    private readonly limit: { maxFailures: number; windowMs: number } = LOGIN_LIMIT,
    private readonly now: () => number = Date.now,
  ) {
    this.#sweptAt = now();
  }

  /** How many e-mails and addresses have failures on record. */
  get size(): number {
    return this.#failures.size;
  }

  #recent(key: string): number[] {
    const since = this.now() - this.limit.windowMs;
    const kept = (this.#failures.get(key) ?? []).filter((at) => at > since);
    if (kept.length > 0) this.#failures.set(key, kept);
    else this.#failures.delete(key);
    return kept;
  }

  /** Ms until an attempt for this e-mail from this address is allowed again; 0 if it is now. */
  retryAfterMs(email: string, address: string): number {
    let wait = 0;
    for (const key of [`email:${email.toLowerCase()}`, `ip:${address}`]) {
      const recent = this.#recent(key);
      if (recent.length >= this.limit.maxFailures) {
        const oldestThatCounts = recent[recent.length - this.limit.maxFailures]!;
        wait = Math.max(wait, oldestThatCounts + this.limit.windowMs - this.now());
      }
    }
    return wait;
  }

  /** Records a failed attempt. */
  failed(email: string, address: string): void {
    this.#sweep();
    for (const key of [`email:${email.toLowerCase()}`, `ip:${address}`]) {
      const recent = this.#recent(key);
      recent.push(this.now());
      this.#failures.set(key, recent);
    }
  }

  /**
   * Once a window, forgets the keys whose failures all aged out, so e-mails and addresses that
   * never come back do not pile up.
   */
  #sweep(): void {
    if (this.now() - this.#sweptAt < this.limit.windowMs) return;
    this.#sweptAt = this.now();
    for (const key of [...this.#failures.keys()]) this.#recent(key);
  }

  /** Clears the e-mail's failures after a successful login. */
  succeeded(email: string): void {
    this.#failures.delete(`email:${email.toLowerCase()}`);
  }
}
