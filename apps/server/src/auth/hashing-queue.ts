/**
 * The password hashes a process computes at once, and the sign-ins waiting for one
 * (`docs/deployment.md`, Sign-in: throttle, passwords, sessions).
 *
 * - At most `slots` hashes run at a time: each holds 128 MiB and most of a core while it runs.
 * - A sign-in waits for a slot only while fewer than `maxWaiting` wait already; past that it is
 *   refused at once ({@link HashingBusyError}, answered 429 with `Retry-After`), so no sign-in
 *   waits behind an unbounded queue. Hashes of authenticated callers (an admin setting a
 *   password, a rehash after a login) are not refused: they wait their turn.
 * - A sign-in for an address nobody has (or a user who has no password) is answered without
 *   hashing: {@link HashingQueue.imitate} waits as long as a verification would have taken (the
 *   queue ahead of it and the duration of a recent real one), and is refused when a verification
 *   would have been. Unknown e-mails thus cost the server a timer, not a slot, and their answer
 *   takes as long as a known e-mail's. The first one, before any verification was timed, runs
 *   one real verification of a decoy to learn the duration (the calibration).
 */

/** A sign-in refused because `maxWaiting` sign-ins already wait for a hash. */
export class HashingBusyError extends Error {
  override name = 'HashingBusyError';

  /** `retryAfterMs`: about how long until the sign-ins ahead of it are done. */
  constructor(readonly retryAfterMs: number) {
    super('Too many sign-ins wait for a password check.');
  }
}

/** The queue's settings and collaborators. */
export interface HashingQueueOptions {
  /** Hashes computed at once. */
  slots: number;
  /** Sign-ins that may wait for a slot; one more is refused. */
  maxWaiting: number;
  /** Waits `ms` (an imitated verification); tests pass one they control. */
  sleep?: (ms: number) => Promise<void>;
  /** A monotonic clock in ms (durations). */
  now?: () => number;
  /** A number in [0, 1) (which recent duration an imitation takes). */
  random?: () => number;
}

/** How many verification durations are kept to imitate from. */
const KEPT_DURATIONS = 32;

/** Whether a piece of work may be refused when the queue is full. */
export type HashingPriority = 'sign-in' | 'authenticated';

/** The slots and the queue in front of them. */
export class HashingQueue {
  readonly #slots: number;
  readonly #maxWaiting: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #random: () => number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  /** Recent verification durations (ms), oldest first. */
  readonly #durations: number[] = [];
  #calibration: Promise<void> | undefined;

  constructor(options: HashingQueueOptions) {
    this.#slots = options.slots;
    this.#maxWaiting = options.maxWaiting;
    this.#sleep =
      options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()));
    this.#now = options.now ?? (() => performance.now());
    this.#random = options.random ?? Math.random;
  }

  /** Hashes running now. */
  get running(): number {
    return this.#running;
  }

  /** Hashes waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `work` in a slot, after the work queued before it. A `sign-in` is refused at once
   * ({@link HashingBusyError}) when `maxWaiting` already wait. `timed`: `work` is a verification
   * at the current cost, whose duration later imitations take after.
   */
  async run<T>(
    work: () => Promise<T>,
    options: { priority: HashingPriority; timed?: boolean },
  ): Promise<T> {
    if (this.#running < this.#slots) {
      this.#running += 1;
    } else {
      if (options.priority === 'sign-in' && this.#waiting.length >= this.#maxWaiting) {
        throw new HashingBusyError(this.#drainMs());
      }
      await new Promise<void>((go) => this.#waiting.push(go));
    }
    const started = this.#now();
    try {
      const result = await work();
      if (options.timed) this.#record(this.#now() - started);
      return result;
    } finally {
      // A finished slot goes straight to the next in line (the count stays as it is).
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }

  /**
   * Answers a sign-in that has nothing to verify as late as a verification would: refused when
   * one would be, else after the queue ahead and a recent verification's duration. Before any
   * verification was timed, `calibrate` runs one real verification (as a sign-in) and that is
   * the wait.
   */
  async imitate(calibrate: () => Promise<void>): Promise<void> {
    if (this.#durations.length === 0) {
      this.#calibration ??= calibrate().finally(() => {
        this.#calibration = undefined;
      });
      await this.#calibration;
      return;
    }
    if (this.#running >= this.#slots && this.#waiting.length >= this.#maxWaiting) {
      throw new HashingBusyError(this.#drainMs());
    }
    const sample = this.#durations[Math.floor(this.#random() * this.#durations.length)]!;
    await this.#sleep(this.#aheadMs() + sample);
  }

  #record(durationMs: number): void {
    this.#durations.push(durationMs);
    if (this.#durations.length > KEPT_DURATIONS) this.#durations.shift();
  }

  #meanMs(): number {
    if (this.#durations.length === 0) return 1000;
    return this.#durations.reduce((sum, d) => sum + d, 0) / this.#durations.length;
  }

  /** How long a verification queued now would wait for its slot. */
  #aheadMs(): number {
    if (this.#running < this.#slots) return 0;
    return ((this.#waiting.length + 1) / this.#slots) * this.#meanMs();
  }

  /** About how long until the work waiting now has had its slot. */
  #drainMs(): number {
    return Math.max(1000, ((this.#waiting.length + this.#running) / this.#slots) * this.#meanMs());
  }
}
