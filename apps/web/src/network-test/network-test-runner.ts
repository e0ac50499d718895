/**
 * Runs the pre-call network test (issue 17): asks the server for a test, places its call on the
 * agent's phone (to the engine's echo number), collects the quality samples of the SDK's own
 * monitor for `NETWORK_TEST_DURATION_MS` once the call is answered, hangs up and reports
 * (`summarizeSamples`). Timers are injected, so tests drive it with a fake clock.
 *
 * ```text
 *   idle ──start──▶ authorizing ──authorized──▶ connecting ──answered──▶ testing ──finished──▶ done
 *                        │                          │                       │
 *                        └────────failed────────────┴─────────failed────────┴──▶ failed
 *   done, failed ──start──▶ authorizing          every state but idle ──cancel──▶ idle
 * ```
 * Each run is an attempt: what a cancelled or superseded run's server answer, call or timers
 * report later is dropped.
 */
import type { NetworkTestResponse } from '@leadline/contracts';
import { StateMachine, statesOf, type TransitionTable } from '@leadline/contracts/lib';
import {
  NETWORK_TEST_ANSWER_TIMEOUT_MS,
  NETWORK_TEST_DURATION_MS,
  NETWORK_TEST_ERRORS,
  NETWORK_TEST_PROGRESS_MS,
} from '../constants';
import { errorMessage } from '../errors';
import type {
  PhoneCall,
  PhoneCallSample,
  PhoneConnectParams,
  PhoneError,
} from '../phone/phone-port';
import type { Clock, TimerHandle, Timers } from '../platform/platform';
import { summarizeSamples, type NetworkReport } from './network-report';

/** What moves a network test on. */
export type NetworkTestEvent =
  'start' | 'authorized' | 'answered' | 'finished' | 'failed' | 'cancel';

/** The lifecycle of a network test run (see the module comment). */
export const NETWORK_TEST_TRANSITIONS = {
  idle: { start: 'authorizing' },
  authorizing: { authorized: 'connecting', failed: 'failed', cancel: 'idle' },
  connecting: { answered: 'testing', failed: 'failed', cancel: 'idle' },
  testing: { finished: 'done', failed: 'failed', cancel: 'idle' },
  done: { start: 'authorizing', cancel: 'idle' },
  failed: { start: 'authorizing', cancel: 'idle' },
} as const satisfies TransitionTable<string, NetworkTestEvent>;

/** A state of a network test run. */
export type NetworkTestState = keyof typeof NETWORK_TEST_TRANSITIONS;

/** Every state, derived from the table. */
export const NETWORK_TEST_STATES: NetworkTestState[] = statesOf<NetworkTestState, NetworkTestEvent>(
  NETWORK_TEST_TRANSITIONS,
);

/** What the Settings panel shows of the test: its state and what that state carries. */
export type NetworkTestSnapshot =
  | { readonly state: 'idle' | 'authorizing' | 'connecting' }
  /** Measuring: `elapsedMs` of `durationMs` since the call was answered. */
  | { readonly state: 'testing'; readonly elapsedMs: number; readonly durationMs: number }
  | { readonly state: 'done'; readonly report: NetworkReport }
  | { readonly state: 'failed'; readonly error: string };

/** What the runner is given. */
export interface NetworkTestRunnerOptions {
  /** Asks the server for a test (`POST /api/v1/network-test`). */
  readonly authorize: () => Promise<NetworkTestResponse>;
  /** Places the test call with the server's params (`ConsoleController.placeNetworkTestCall`). */
  readonly connect: (params: PhoneConnectParams) => Promise<PhoneCall>;
  readonly timers: Timers;
  readonly clock: Clock;
  /** How long it measures once answered (default `NETWORK_TEST_DURATION_MS`). */
  readonly durationMs?: number;
  /** How long the call may take to be answered (default `NETWORK_TEST_ANSWER_TIMEOUT_MS`). */
  readonly answerTimeoutMs?: number;
}

/** Whether the test is under way (a new one cannot start). */
export const isRunning = (snapshot: NetworkTestSnapshot): boolean =>
  snapshot.state === 'authorizing' ||
  snapshot.state === 'connecting' ||
  snapshot.state === 'testing';

/** See the module comment. */
export class NetworkTestRunner {
  readonly #options: NetworkTestRunnerOptions;
  readonly #machine = new StateMachine<NetworkTestState, NetworkTestEvent>(
    'network test',
    NETWORK_TEST_TRANSITIONS,
    'idle',
  );
  #snapshot: NetworkTestSnapshot = { state: 'idle' };
  readonly #listeners = new Set<() => void>();
  /** The current run; bumps on every start and cancel. */
  #attempt = 0;
  /** The current run's call, its listeners' removal, timers and samples. */
  #call: PhoneCall | null = null;
  #detach: (() => void) | null = null;
  #timers: Array<{ handle: TimerHandle; interval: boolean }> = [];
  #samples: PhoneCallSample[] = [];
  #answeredAtMs = 0;

  constructor(options: NetworkTestRunnerOptions) {
    this.#options = options;
  }

  /** The current snapshot (stable between changes). */
  readonly getSnapshot = (): NetworkTestSnapshot => this.#snapshot;

  /** Subscribes to snapshot changes; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  get #durationMs(): number {
    return this.#options.durationMs ?? NETWORK_TEST_DURATION_MS;
  }

  /**
   * Starts a test; resolves once its call is placed (or it failed before). Does nothing while
   * one is under way. The result comes in the snapshot.
   */
  async start(): Promise<void> {
    if (!this.#machine.can('start')) return;
    const attempt = ++this.#attempt;
    this.#samples = [];
    this.#send('start', { state: 'authorizing' });
    let call: PhoneCall;
    try {
      const answer = await this.#options.authorize();
      if (attempt !== this.#attempt) return;
      this.#send('authorized', { state: 'connecting' });
      call = await this.#options.connect(answer.params);
    } catch (error) {
      if (attempt === this.#attempt) this.#fail(errorMessage(error));
      return;
    }
    if (attempt !== this.#attempt) {
      // Cancelled while the call was being placed.
      hangUp(call);
      return;
    }
    this.#watch(call, attempt);
  }

  /** Stops the test under way (its call is hung up) and forgets any result. */
  cancel(): void {
    this.#attempt++;
    this.#releaseCall();
    if (this.#machine.can('cancel')) this.#send('cancel', { state: 'idle' });
  }

  #watch(call: PhoneCall, attempt: number): void {
    this.#call = call;
    const current = () => attempt === this.#attempt;
    const onAccept = () => {
      if (current()) this.#answered();
    };
    const onSample = (sample: PhoneCallSample) => {
      if (current() && this.#machine.state === 'testing') this.#samples.push(sample);
    };
    const onDisconnect = () => {
      if (!current()) return;
      this.#fail(
        this.#machine.state === 'testing'
          ? NETWORK_TEST_ERRORS.endedEarly
          : NETWORK_TEST_ERRORS.notAnswered,
      );
    };
    const onError = (error: PhoneError) => {
      if (current()) this.#fail(`The test call failed: ${error.message} (${error.code}).`);
    };
    call.on('accept', onAccept);
    call.on('sample', onSample);
    call.on('disconnect', onDisconnect);
    call.on('error', onError);
    this.#detach = () => {
      call.off('accept', onAccept);
      call.off('sample', onSample);
      call.off('disconnect', onDisconnect);
      call.off('error', onError);
    };
    this.#after(this.#options.answerTimeoutMs ?? NETWORK_TEST_ANSWER_TIMEOUT_MS, () => {
      if (current() && this.#machine.state === 'connecting') {
        this.#fail(NETWORK_TEST_ERRORS.notAnswered);
      }
    });
    // Answered already, before anyone listened.
    if (call.status() === 'open') this.#answered();
  }

  #answered(): void {
    if (!this.#machine.can('answered')) return;
    this.#clearTimers();
    this.#answeredAtMs = this.#options.clock.now();
    this.#send('answered', { state: 'testing', elapsedMs: 0, durationMs: this.#durationMs });
    const attempt = this.#attempt;
    this.#every(NETWORK_TEST_PROGRESS_MS, () => {
      if (attempt !== this.#attempt || this.#machine.state !== 'testing') return;
      const elapsedMs = Math.min(this.#durationMs, this.#options.clock.now() - this.#answeredAtMs);
      this.#snapshot = { state: 'testing', elapsedMs, durationMs: this.#durationMs };
      this.#notify();
    });
    this.#after(this.#durationMs, () => {
      if (attempt === this.#attempt) this.#finish();
    });
  }

  #finish(): void {
    const report = summarizeSamples(this.#samples);
    this.#releaseCall();
    if (report) this.#send('finished', { state: 'done', report });
    else this.#send('failed', { state: 'failed', error: NETWORK_TEST_ERRORS.noSamples });
  }

  #fail(error: string): void {
    this.#releaseCall();
    if (this.#machine.can('failed')) this.#send('failed', { state: 'failed', error });
  }

  /** Stops listening to the call, hangs it up if it is still up, and clears the timers. */
  #releaseCall(): void {
    this.#clearTimers();
    this.#detach?.();
    this.#detach = null;
    const call = this.#call;
    this.#call = null;
    if (call) hangUp(call);
  }

  #send(event: NetworkTestEvent, snapshot: NetworkTestSnapshot): void {
    this.#machine.send(event);
    this.#snapshot = snapshot;
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #after(delayMs: number, callback: () => void): void {
    const handle = this.#options.timers.setTimeout(callback, delayMs);
    this.#timers.push({ handle, interval: false });
  }

  #every(intervalMs: number, callback: () => void): void {
    const handle = this.#options.timers.setInterval(callback, intervalMs);
    this.#timers.push({ handle, interval: true });
  }

  #clearTimers(): void {
    const { timers } = this.#options;
    for (const { handle, interval } of this.#timers.splice(0)) {
      if (interval) timers.clearInterval(handle);
      else timers.clearTimeout(handle);
    }
  }
}

/** Hangs up a call that is not over yet. */
function hangUp(call: PhoneCall): void {
  if (call.status() !== 'closed') call.disconnect();
}
