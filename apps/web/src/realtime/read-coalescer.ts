/**
 * Many requests, few reads: realtime events that each mean "read this again" (a burst of
 * `floor-changed` and `agent-status` as a lead is rung, answered, refused) become one read. The
 * first request after a quiet time starts a read `windowMs` later, and the requests meanwhile
 * join it. A request while a read is in flight asks for one more after it (that read may have
 * been answered before the change the request announces was there), again `windowMs` later:
 * never two reads at once, and never more than one a window.
 *
 * ```text
 *   idle ──request──▶ waiting ──due──▶ reading ──done──▶ idle
 *                       ▲                 │
 *                       │              request
 *                       │                 ▼
 *                       └─────done──── reading-again
 *   waiting, reading-again ──request──▶ the same      every state ──stop──▶ idle
 * ```
 * Each read is an attempt: the end of one that `stop` superseded is dropped. Timers are
 * injected, so tests drive it with a fake clock.
 */
import { StateMachine, statesOf, type TransitionTable } from '@leadline/contracts/lib';
import type { TimerHandle, Timers } from '../platform/platform';

/** What moves the coalescer on. */
export type ReadCoalescerEvent = 'request' | 'due' | 'done' | 'stop';

/** The coalescer's lifecycle (see the module comment). */
export const READ_COALESCER_TRANSITIONS = {
  idle: { request: 'waiting', stop: 'idle' },
  waiting: { request: 'waiting', due: 'reading', stop: 'idle' },
  reading: { request: 'reading-again', done: 'idle', stop: 'idle' },
  'reading-again': { request: 'reading-again', done: 'waiting', stop: 'idle' },
} as const satisfies TransitionTable<string, ReadCoalescerEvent>;

/** A state of the coalescer. */
export type ReadCoalescerState = keyof typeof READ_COALESCER_TRANSITIONS;

/** Every state, derived from the table. */
export const READ_COALESCER_STATES: ReadCoalescerState[] = statesOf<
  ReadCoalescerState,
  ReadCoalescerEvent
>(READ_COALESCER_TRANSITIONS);

/** What a {@link ReadCoalescer} is given. */
export interface ReadCoalescerOptions {
  /** The read; resolves (or rejects) once it is over. */
  readonly read: () => Promise<unknown>;
  readonly timers: Timers;
  /** How long requests are gathered before a read, and the least time between two reads. */
  readonly windowMs: number;
  /** Hears a read that failed (the next request reads again). */
  readonly onError?: (error: unknown) => void;
}

/** See the module comment. */
export class ReadCoalescer {
  readonly #options: ReadCoalescerOptions;
  readonly #machine = new StateMachine<ReadCoalescerState, ReadCoalescerEvent>(
    'read coalescer',
    READ_COALESCER_TRANSITIONS,
    'idle',
  );
  #timer: TimerHandle | null = null;
  /** The current read's attempt; a read of an older one reports nothing. */
  #attempt = 0;

  constructor(options: ReadCoalescerOptions) {
    this.#options = options;
  }

  /** The state now. */
  get state(): ReadCoalescerState {
    return this.#machine.state;
  }

  /** Asks for a read (see the module comment for when it happens). */
  request(): void {
    const before = this.#machine.state;
    this.#machine.send('request');
    if (before === 'idle') this.#arm();
  }

  /** Forgets the requests: no read starts, and the end of one in flight is dropped. */
  stop(): void {
    this.#machine.send('stop');
    this.#attempt += 1;
    if (this.#timer !== null) this.#options.timers.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #arm(): void {
    this.#timer = this.#options.timers.setTimeout(() => {
      this.#timer = null;
      this.#machine.send('due');
      this.#read();
    }, this.#options.windowMs);
  }

  #read(): void {
    const attempt = ++this.#attempt;
    const done = () => {
      if (attempt !== this.#attempt) return;
      if (this.#machine.send('done') === 'waiting') this.#arm();
    };
    new Promise((resolve) => resolve(this.#options.read())).then(done, (error: unknown) => {
      if (attempt === this.#attempt) this.#options.onError?.(error);
      done();
    });
  }
}
