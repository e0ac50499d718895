/**
 * DTMF (spec sections 5, 8, 9): `sendDigits` accepts 0-9, `*`, `#` and `w` (a pause), and plays
 * them one at a time: each digit is a 160 ms RFC 4733 tone followed by a 200 ms gap, each `w`
 * a 500 ms pause. Digits of later `sendDigits` calls queue behind those still playing.
 */
import { DTMF_GAP_MS, DTMF_PAUSE_MS, DTMF_TONE_MS } from '../constants';
import { InvalidArgumentError } from '../errors/errors';
import type { Clock } from '../platform/platform';

/** Throws `InvalidArgumentError` 'Illegal character passed into sendDigits' for other input. */
export function checkDigits(digits: unknown): asserts digits is string {
  if (typeof digits !== 'string' || /[^0-9*#w]/.test(digits)) {
    throw new InvalidArgumentError('Illegal character passed into sendDigits');
  }
}

/** Plays digits at the DTMF pace: `play(digit)` for each digit, nothing for `w`. */
export class DtmfQueue {
  readonly #queue: string[] = [];
  #timer: unknown = null;

  constructor(
    private readonly clock: Clock,
    private readonly play: (digit: string) => void,
  ) {}

  /** Queues digits (already checked); the first plays now if nothing is playing. */
  push(digits: string): void {
    this.#queue.push(...digits);
    if (this.#timer === null) this.#next();
  }

  /** Drops what is still queued. */
  clear(): void {
    this.#queue.length = 0;
    this.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #next(): void {
    const digit = this.#queue.shift();
    if (digit === undefined) {
      this.#timer = null;
      return;
    }
    if (digit !== 'w') this.play(digit);
    const waitMs = digit === 'w' ? DTMF_PAUSE_MS : DTMF_TONE_MS + DTMF_GAP_MS;
    this.#timer = this.clock.setTimeout(() => this.#next(), waitMs);
  }
}
