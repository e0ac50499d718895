/**
 * Waiting in tests of the real media engine: for its events, and for what a werift peer hears.
 * Every wait is for a condition and fails loudly, naming what it waited for and what it saw,
 * when the condition does not come within its timeout; none asserts how long anything took.
 */
import { SAMPLE_RATE_HZ } from '../constants';
import type { MediaEvent } from '../media/media-engine';
import type { WeriftBrowser } from '../media/werift-browser';

/** How long a wait lasts before it fails, unless told. */
export const MEDIA_WAIT_MS = 20_000;

/** How often a wait on a peer's audio looks again. */
const POLL_MS = 50;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A media event of `type`. */
type EventOf<T extends MediaEvent['type']> = Extract<MediaEvent, { type: T }>;

/** Collects an engine's events (subscribe `listener`) and waits for the ones a test needs. */
export class MediaEventLog {
  /** Every event so far, in order. */
  readonly events: MediaEvent[] = [];
  readonly #waiters = new Set<() => void>();

  /** The engine's listener. */
  readonly listener = (event: MediaEvent): void => {
    this.events.push(event);
    for (const wake of [...this.#waiters]) wake();
  };

  /** Every event about `participantId`, in order. */
  about(participantId: string): MediaEvent[] {
    return this.events.filter(
      (event) => 'participantId' in event && event.participantId === participantId,
    );
  }

  /** The events of `type` about `participantId`, in order. */
  of<T extends MediaEvent['type']>(type: T, participantId: string): EventOf<T>[] {
    return this.about(participantId).filter((event): event is EventOf<T> => event.type === type);
  }

  /** Waits for the first event of `type` about `participantId`. */
  async next<T extends MediaEvent['type']>(
    type: T,
    participantId: string,
    timeoutMs = MEDIA_WAIT_MS,
  ): Promise<EventOf<T>> {
    await this.until(
      () => this.of(type, participantId).length > 0,
      `${type} for ${participantId}`,
      timeoutMs,
    );
    return this.of(type, participantId)[0]!;
  }

  /** Resolves once `done()` holds after some event (or at once); fails naming `what` if it does not. */
  until(done: () => boolean, what: string, timeoutMs = MEDIA_WAIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.events)}`));
      }, timeoutMs);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** Waits until `browser` has heard `seconds` more audio than it had, and returns that audio. */
export async function listen(
  browser: WeriftBrowser,
  seconds: number,
  timeoutMs = MEDIA_WAIT_MS,
): Promise<Int16Array> {
  const from = browser.heardSamples;
  const until = Date.now() + timeoutMs;
  while (browser.heardSamples - from < seconds * SAMPLE_RATE_HZ) {
    if (Date.now() > until) {
      const heardS = (browser.heardSamples - from) / SAMPLE_RATE_HZ;
      throw new Error(`heard ${heardS} s of audio in ${timeoutMs} ms, waiting for ${seconds} s`);
    }
    await sleep(POLL_MS);
  }
  return browser.heard(from);
}

/**
 * Waits until what `browser` heard from sample `from` on has a window of `windowSeconds` (windows
 * taken one after another from `from`) that passes `test`; resolves with the sample index where
 * that window starts. Fails naming `what` when no window has passed within `timeoutMs`.
 */
export async function heardWindow(
  browser: WeriftBrowser,
  from: number,
  test: (window: Int16Array) => boolean,
  what: string,
  { windowSeconds = 0.1, timeoutMs = MEDIA_WAIT_MS } = {},
): Promise<number> {
  const size = Math.round(windowSeconds * SAMPLE_RATE_HZ);
  const until = Date.now() + timeoutMs;
  let start = from;
  for (;;) {
    const heard = browser.heard();
    for (; start + size <= heard.length; start += size) {
      if (test(heard.subarray(start, start + size))) return start;
    }
    if (Date.now() > until) {
      const heardS = (heard.length - from) / SAMPLE_RATE_HZ;
      throw new Error(`no ${what} in ${heardS} s of audio heard within ${timeoutMs} ms`);
    }
    await sleep(POLL_MS);
  }
}
