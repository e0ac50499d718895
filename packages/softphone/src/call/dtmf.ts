/**
 * DTMF (spec sections 5, 8, 9): `sendDigits` accepts 0-9, `*`, `#` and `w` (a pause), and plays
 * them in order: each digit a 160 ms tone with at least a 200 ms gap before the next, each `w`
 * a 500 ms pause after the digits before it have played. Digits of later `sendDigits` calls
 * queue behind those still playing.
 *
 * RFC 4733 digits are handed to the browser's `RTCDTMFSender` a run at a time (the digits
 * between pauses), appended to what it still has to play: the browser paces its tone buffer
 * itself, and `insertDTMF` replaces that buffer, so handing it one digit at a time on our own
 * timer loses digits when the browser is slower than the timer (Chromium plays a digit every
 * 560 ms for a 160 ms tone and a 200 ms gap). The feedback sound of a digit plays when the
 * browser starts its tone (`tonechange`). Digits that went over signalling only get their
 * feedback sounds, at the same pace.
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

/** The part of `RTCDTMFSender` the queue uses. */
export interface DtmfSenderLike {
  /** The tones still to play. */
  readonly toneBuffer: string;
  insertDTMF(tones: string, duration?: number, interToneGap?: number): void;
  addEventListener(type: 'tonechange', listener: (event: { tone: string }) => void): void;
  removeEventListener(type: 'tonechange', listener: (event: { tone: string }) => void): void;
}

/** One queued digit and how it is sent: by this RFC 4733 sender, or (null) it went over signalling. */
interface QueuedDigit {
  digit: string;
  sender: DtmfSenderLike | null;
}

/**
 * How long to wait for a sender's `tonechange` before taking it as done anyway: twice the
 * nominal pace of what it still plays, plus a second.
 */
const watchdogMs = (tones: number) => (tones + 1) * (DTMF_TONE_MS + DTMF_GAP_MS) * 2 + 1_000;

/** Plays digits in order at the DTMF pace (see the module comment). */
export class DtmfQueue {
  readonly #queue: QueuedDigit[] = [];
  /** A pause, or the pace of signalled digits' feedback sounds. */
  #timer: unknown = null;
  /** The sender still playing tones we gave it (until its `tonechange` with no tone). */
  #busy: DtmfSenderLike | null = null;
  #watchdog: unknown = null;
  #listening: DtmfSenderLike | null = null;
  readonly #onToneChange = (event: { tone: string }) => {
    if (event.tone) this.feedback(event.tone);
    if (this.#busy === null) return;
    if (event.tone) this.#armWatchdog(this.#busy.toneBuffer.length);
    else this.#drained();
  };

  constructor(
    private readonly clock: Clock,
    /** Plays the feedback sound of a digit. */
    private readonly feedback: (digit: string) => void,
  ) {}

  /**
   * Queues digits (already checked) to be played by `sender` as RFC 4733 events, or, when
   * `sender` is null (they went over signalling), as feedback sounds only.
   */
  push(digits: string, sender: DtmfSenderLike | null): void {
    for (const digit of digits) this.#queue.push({ digit, sender });
    this.#next();
  }

  /** Drops what is still queued and stops listening. */
  clear(): void {
    this.#queue.length = 0;
    this.clock.clearTimeout(this.#timer);
    this.clock.clearTimeout(this.#watchdog);
    this.#timer = this.#watchdog = this.#busy = null;
    this.#listening?.removeEventListener('tonechange', this.#onToneChange);
    this.#listening = null;
  }

  /** Plays from the head of the queue as far as it can now. */
  #next(): void {
    while (this.#timer === null) {
      const head = this.#queue[0];
      if (!head) return;
      const tone = head.digit !== 'w' ? head.sender : null;
      if (tone && (this.#busy === null || this.#busy === tone)) {
        this.#insertRun(tone);
        continue;
      }
      // A pause, or a signalled digit's sound, waits for the tones before it.
      if (this.#busy !== null) return;
      this.#queue.shift();
      if (head.digit !== 'w') this.feedback(head.digit);
      const waitMs = head.digit === 'w' ? DTMF_PAUSE_MS : DTMF_TONE_MS + DTMF_GAP_MS;
      this.#timer = this.clock.setTimeout(() => {
        this.#timer = null;
        this.#next();
      }, waitMs);
    }
  }

  /** Hands the digits at the head up to the next pause to `sender`, after what it still has. */
  #insertRun(sender: DtmfSenderLike): void {
    let run = '';
    while (this.#queue[0]?.sender === sender && this.#queue[0].digit !== 'w') {
      run += this.#queue.shift()!.digit;
    }
    if (this.#listening !== sender) {
      this.#listening?.removeEventListener('tonechange', this.#onToneChange);
      sender.addEventListener('tonechange', this.#onToneChange);
      this.#listening = sender;
    }
    const tones = sender.toneBuffer + run;
    try {
      sender.insertDTMF(tones, DTMF_TONE_MS, DTMF_GAP_MS);
    } catch {
      // The sender cannot play now (e.g. the call no longer sends): the digits are dropped.
      if (this.#busy === null) return;
      return this.#drained();
    }
    this.#busy = sender;
    this.#armWatchdog(tones.length);
  }

  #armWatchdog(tones: number): void {
    this.clock.clearTimeout(this.#watchdog);
    this.#watchdog = this.clock.setTimeout(() => this.#drained(), watchdogMs(tones));
  }

  /** The sender played everything (or stopped telling): what waited behind it goes on. */
  #drained(): void {
    this.clock.clearTimeout(this.#watchdog);
    this.#watchdog = this.#busy = null;
    this.#next();
  }
}
