/**
 * The call console's outbox: the agent's after-call writes (disposition, tags, SMS, note) are
 * written to a persistent queue first and sent from there, so a Wi-Fi blink between Hang Up and
 * Save loses nothing and the agent can take the next call while a write waits.
 *
 * **Persist, then send.** {@link Outbox.enqueue} resolves only once the entry is in the
 * {@link OutboxStore} (IndexedDB in the browser), and no attempt starts before that; a reload at
 * any moment finds the entry and {@link Outbox.start} sends it.
 *
 * **Order.** Entries of a user are sent strictly in insertion order, one request at a time: entry
 * 2 is never sent before entry 1 was delivered or refused. While the oldest entry waits for a
 * retry, the ones behind it wait too (a note never overtakes its call's disposition).
 *
 * **Exactly-once effect.** Delivery is at-least-once: an attempt whose answer was lost (timeout,
 * network error, 5xx) is sent again. Every entry carries an idempotency key (a UUID made at
 * enqueue, the same on every attempt and across reloads; the `send` puts it in the
 * `Idempotency-Key` header) and the server applies a key once and replays its first answer, so
 * the effect is exactly once.
 *
 * **What is retried, what is final** (the `send` classifies; {@link classifyResponse} is the
 * table): no answer, 5xx, 408, 409 (the key is still in progress), 425 and 429 are retried with
 * exponential back-off (1000 ms, ×2, at most 30,000 ms, full jitter; an injected
 * {@link RetryPolicy}); 2xx is delivered; any other 4xx or `{ success: false, error }` is a final
 * refusal: the entry is removed, reported in {@link OutboxSnapshot.lastError} and by the entry's
 * `firstAttempt`, and the next entry goes on. An attempt with no answer after
 * {@link OUTBOX_ATTEMPT_TIMEOUT_MS} is aborted and retried.
 *
 * **Network.** While the injected network status says offline, nothing is attempted; the
 * browser's `online` event triggers an attempt at once and restarts the back-off. Attempts and
 * the next attempt time are stored with each entry (a reload keeps a backed-off entry waiting
 * until its time; the back-off sequence itself restarts).
 *
 * **Users.** The outbox sends only the entries of the user it was started for, with that user's
 * `send` (session); entries of other users stay stored, untouched, until that user signs in here.
 * {@link Outbox.stop} (logout, user change) stops sending and deletes nothing.
 *
 * **Tabs.** Each attempt (read the oldest entry, send it, record the outcome) runs under the Web
 * Lock {@link OUTBOX_LOCK_NAME} when an injected `lock` is given, so two tabs never send the same
 * entry at once; without Web Locks it just runs (the server's idempotency still holds).
 *
 * The drain loop is the lifecycle in `outbox-lifecycle.ts`. Every platform API (clock, timers,
 * network status, randomness, UUIDs, locks, storage) is injected; `browser-outbox.ts` wires the
 * browser's.
 */
import { StateMachine } from '@leadline/contracts/lib';
import { errorMessage } from '../errors';
import type { Clock, Logger, NetworkStatus, TimerHandle, Timers } from '../platform/platform';
import { OUTBOX_ATTEMPT_TIMEOUT_MS, OUTBOX_BACKOFF, OUTBOX_LOCK_NAME } from './outbox-constants';
import type { OutboxEntry, OutboxRequest } from './outbox-entry';
import {
  OUTBOX_TRANSITIONS,
  OutboxTransitionError,
  displayState,
  type LastOutcome,
  type OutboxError,
  type OutboxPhase,
  type OutboxPhaseEvent,
  type OutboxSnapshot,
} from './outbox-lifecycle';
import type { OutboxStore } from './outbox-store';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy';
import type { OutboxResult, SendOutcome } from './send-outcome';

/**
 * Sends one entry over HTTP (with `Idempotency-Key: entry.key`) and classifies the answer
 * ({@link classifyResponse}; {@link NETWORK_FAILURE} when `fetch` throws). `signal` aborts when the
 * outbox gives up waiting for the answer. A thrown error counts as a retry.
 */
export type OutboxSend = (
  entry: OutboxEntry,
  context: { readonly signal: AbortSignal },
) => Promise<SendOutcome>;

/** Runs `fn` while holding the named lock (the Web Locks API's `navigator.locks.request`). */
export type OutboxLock = <T>(name: string, fn: () => Promise<T>) => Promise<T>;

/** What {@link Outbox.start} needs from the signed-in session. */
export interface OutboxSendOptions {
  /** Sends with this user's session. */
  readonly send: OutboxSend;
}

/** The outbox's collaborators. */
export interface OutboxOptions {
  readonly store: OutboxStore;
  readonly clock: Clock;
  readonly timers: Timers;
  /** `online()` and the `online` event; nothing is attempted while offline. */
  readonly network: NetworkStatus;
  /** A number in [0, 1) (`Math.random`), for the back-off's jitter. */
  readonly random: () => number;
  /** A fresh idempotency key (`crypto.randomUUID`). */
  readonly createKey: () => string;
  /** The Web Locks API; without it attempts just run. */
  readonly lock?: OutboxLock;
  /** The back-off ({@link DEFAULT_RETRY_POLICY} unless given). */
  readonly retryPolicy?: RetryPolicy;
  /** How long one attempt may wait for its answer ({@link OUTBOX_ATTEMPT_TIMEOUT_MS}). */
  readonly attemptTimeoutMs?: number;
  /** Where storage failures and thrown `send` errors are logged. */
  readonly log?: Logger;
}

/** What {@link Outbox.enqueue} resolves with once the entry is stored. */
export interface EnqueueResult {
  /** The stored entry (with its id and idempotency key). */
  readonly entry: OutboxEntry;
  /**
   * How the entry's first attempt ended: `done` with the server's payload, `refused` with its
   * error (show it, e.g. the SMS view's banner), or `queued` when the entry will be tried later
   * (network failure, offline, behind an entry that waits, outbox stopped or started for another
   * user). Never rejects.
   */
  readonly firstAttempt: Promise<OutboxResult>;
}

/** One start of the outbox for one user; results of an older run are dropped. */
interface Run {
  readonly userId: number;
  readonly send: OutboxSend;
}

/** A caller waiting for an entry's first attempt. */
interface FirstAttemptWaiter {
  readonly userId: number;
  /** The enqueue sequence number once its entry was stored (`null` while being stored). */
  seq: number | null;
  readonly resolve: (result: OutboxResult) => void;
}

/** What one attempt step found. */
type Step =
  /** The run was stopped meanwhile. */
  | { readonly kind: 'stale' }
  /** The user's queue is empty. */
  | { readonly kind: 'empty' }
  /** The oldest entry was delivered or refused; go on with the next. */
  | { readonly kind: 'next' }
  /** Nothing may be sent before `atMs`. */
  | { readonly kind: 'wait'; readonly atMs: number }
  /** The network is down. */
  | { readonly kind: 'offline' };

/** The queued reasons `firstAttempt` reports. */
const QUEUED = {
  offline: 'Offline: it will be sent when the connection is back.',
  waiting: 'Queued: it will be sent as soon as the server can be reached.',
  notStarted: 'Not sent yet: it will be sent when this user is signed in.',
  stopped: 'The outbox was stopped; it will be sent when this user is signed in again.',
  elsewhere: 'Sent from another tab.',
  timeout: 'No answer from the server in time.',
} as const;

const noLock: OutboxLock = (_name, fn) => fn();

/** The back-off streak of failures not tied to an entry (the store failed). */
const NO_ENTRY = -1;

/** The persistent, ordered, idempotent outbox. */
export class Outbox {
  readonly #store: OutboxStore;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #network: NetworkStatus;
  readonly #random: () => number;
  readonly #createKey: () => string;
  readonly #lock: OutboxLock;
  readonly #retryPolicy: RetryPolicy;
  readonly #attemptTimeoutMs: number;
  readonly #log: Logger | undefined;

  readonly #machine = new StateMachine<OutboxPhase, OutboxPhaseEvent>(
    'Outbox',
    OUTBOX_TRANSITIONS,
    'stopped',
    (_machine, phase, event) => new OutboxTransitionError(phase, event),
  );
  #run: Run | null = null;
  #unsubscribeNetwork: (() => void) | null = null;
  #wakeTimer: TimerHandle | null = null;
  /** Retries of the oldest entry since the back-off last restarted. */
  #streak: { readonly entryId: number; count: number } | null = null;
  /** Serializes this tab's attempts across runs (a new run waits for an old in-flight attempt). */
  #attempts: Promise<unknown> = Promise.resolve();
  /** Bumped by every enqueue, so a drain that raced one does not stop on a stale empty read. */
  #seq = 0;
  /** Callers waiting for a first attempt, by idempotency key. */
  readonly #waiters = new Map<string, FirstAttemptWaiter>();

  #pending = 0;
  #lastOutcome: LastOutcome = null;
  #lastError: OutboxError | null = null;
  #snapshot: OutboxSnapshot = Object.freeze({ pending: 0, state: 'idle', lastError: null });
  readonly #listeners = new Set<() => void>();

  constructor(options: OutboxOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#timers = options.timers;
    this.#network = options.network;
    this.#random = options.random;
    this.#createKey = options.createKey;
    this.#lock = options.lock ?? noLock;
    this.#retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? OUTBOX_ATTEMPT_TIMEOUT_MS;
    this.#log = options.log;
  }

  /** The drain loop's phase (diagnostics and tests; the UI reads {@link getSnapshot}). */
  get phase(): OutboxPhase {
    return this.#machine.state;
  }

  /**
   * Stores a write, then (when the outbox runs for `request.userId`) sends it after the entries
   * before it. Rejects only if the store cannot keep it; then nothing was sent.
   */
  async enqueue(request: OutboxRequest): Promise<EnqueueResult> {
    const nowMs = this.#clock.now();
    const key = this.#createKey();
    // Waiting before the entry is stored: a drain already running may send it at once.
    let waiter: FirstAttemptWaiter | undefined;
    const firstAttempt = new Promise<OutboxResult>((resolve) => {
      waiter = { userId: request.userId, seq: null, resolve };
      this.#waiters.set(key, waiter);
    });
    let entry: OutboxEntry;
    try {
      entry = await this.#store.add({
        userId: request.userId,
        method: request.method,
        path: request.path,
        body: request.body,
        label: request.label,
        ...(request.showsRefusal ? { showsRefusal: true } : {}),
        key,
        createdAt: nowMs,
        attempts: 0,
        nextAttemptAt: nowMs,
      });
    } catch (error) {
      this.#waiters.delete(key);
      throw error;
    }
    if (waiter) waiter.seq = ++this.#seq;
    const run = this.#run;
    if (!run || run.userId !== entry.userId) {
      this.#settle(key, { kind: 'queued', reason: QUEUED.notStarted });
      return { entry, firstAttempt };
    }
    this.#setPending(this.#pending + 1);
    switch (this.#machine.state) {
      case 'idle':
        this.#wake(false);
        break;
      case 'offline':
        this.#settle(key, { kind: 'queued', reason: QUEUED.offline });
        break;
      case 'backingOff':
        this.#settle(key, { kind: 'queued', reason: QUEUED.waiting });
        break;
      default:
        // `sending`: the drain loop reads the queue again before it stops.
        break;
    }
    return { entry, firstAttempt };
  }

  /**
   * Starts (or, after a reload, resumes) sending the stored entries of `userId` with its
   * session's `send`. Starting while running for someone stops that run first.
   */
  start(userId: number, options: OutboxSendOptions): void {
    if (this.#machine.state !== 'stopped') this.stop();
    this.#machine.send('start');
    this.#run = { userId, send: options.send };
    this.#streak = null;
    this.#pending = 0;
    this.#lastOutcome = null;
    this.#lastError = null;
    this.#unsubscribeNetwork = this.#network.subscribe(() => this.#onNetworkChange());
    this.#publish();
    this.#wake(false);
  }

  /**
   * Stops sending (logout, user change). Stored entries stay; an attempt already in flight
   * finishes and its outcome is still recorded in the store.
   */
  stop(): void {
    if (this.#machine.state === 'stopped') return;
    this.#machine.send('stop');
    this.#run = null;
    this.#cancelWakeTimer();
    this.#unsubscribeNetwork?.();
    this.#unsubscribeNetwork = null;
    for (const key of [...this.#waiters.keys()]) {
      this.#settle(key, { kind: 'queued', reason: QUEUED.stopped });
    }
    this.#pending = 0;
    this.#lastOutcome = null;
    this.#lastError = null;
    this.#publish();
  }

  /**
   * Resolves once the attempt in flight (if any) has finished and recorded its outcome. After
   * {@link stop}, nothing starts again, so this is "quiet": e.g. before logging out, so a write
   * on its way is not cut off by the session ending.
   */
  settled(): Promise<void> {
    return this.#attempts.then(() => undefined);
  }

  /** The current status; the same object until something changes. */
  getSnapshot = (): OutboxSnapshot => this.#snapshot;

  /** Calls `listener` after every status change; returns the unsubscribe. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  };

  /** Clears {@link OutboxSnapshot.lastError} (the agent read it). */
  dismissError(): void {
    this.#lastError = null;
    this.#publish();
  }

  /** Moves to `sending` and runs the drain loop; `force` ignores the head's stored next time. */
  #wake(force: boolean): void {
    const run = this.#run;
    if (!run || !this.#machine.can('wake')) return;
    this.#cancelWakeTimer();
    this.#machine.send('wake');
    this.#publish();
    void this.#drain(run, force);
  }

  async #drain(run: Run, force: boolean): Promise<void> {
    let ignoreSchedule = force;
    for (;;) {
      const seqAtStart = this.#seq;
      let step: Step;
      try {
        step = await this.#serialized(() => this.#attemptOldest(run, ignoreSchedule));
      } catch (error) {
        // The store failed (IndexedDB closed, quota): keep everything and try again later.
        this.#log?.error('Outbox: storage failed; retrying later.', error);
        step = { kind: 'wait', atMs: this.#clock.now() + this.#nextDelayMs(null) };
      }
      ignoreSchedule = false;
      if (this.#run !== run) return;
      switch (step.kind) {
        case 'stale':
          return;
        case 'next':
          continue;
        case 'empty':
          if (this.#seq !== seqAtStart) continue;
          this.#machine.send('drained');
          this.#publish();
          return;
        case 'wait':
          this.#wakeTimer = this.#timers.setTimeout(
            () => {
              this.#wakeTimer = null;
              this.#wake(true);
            },
            Math.max(0, step.atMs - this.#clock.now()),
          );
          this.#machine.send('backOff');
          this.#settleUserWaiters(run.userId, QUEUED.waiting);
          this.#publish();
          return;
        case 'offline':
          // The `online` event may have come while this step finished (it is ignored while
          // sending): look again rather than wait for an event that already passed.
          if (this.#network.isOnline()) {
            this.#streak = null;
            ignoreSchedule = true;
            continue;
          }
          this.#machine.send('wentOffline');
          this.#settleUserWaiters(run.userId, QUEUED.offline);
          this.#publish();
          return;
      }
    }
  }

  /** One step under the lock: read the user's oldest entry, send it, record the outcome. */
  async #attemptOldest(run: Run, ignoreSchedule: boolean): Promise<Step> {
    if (this.#run !== run) return { kind: 'stale' };
    const seqAtRead = this.#seq;
    const entries = await this.#store.list(run.userId);
    if (this.#run !== run) return { kind: 'stale' };
    this.#settleVanished(run.userId, entries, seqAtRead);
    this.#setPending(entries.length);
    const oldest = entries[0];
    if (!oldest) return { kind: 'empty' };
    if (!this.#network.isOnline()) return { kind: 'offline' };
    const nowMs = this.#clock.now();
    if (!ignoreSchedule && oldest.nextAttemptAt > nowMs) {
      // Backed off by an earlier page load or another tab: keep its schedule, but never longer
      // than the longest back-off (the computer's clock may have been set back since).
      return {
        kind: 'wait',
        atMs: Math.min(oldest.nextAttemptAt, nowMs + OUTBOX_BACKOFF.maxDelayMs),
      };
    }

    const outcome = await this.#sendOnce(run, oldest);
    if (outcome.kind === 'retry') {
      this.#settle(oldest.key, { kind: 'queued', reason: outcome.reason });
      // A run stopped meanwhile leaves the back-off to the next run (which restarts it).
      const delayMs = this.#run === run ? this.#nextDelayMs(oldest.id) : 0;
      const nextAttemptAt = this.#clock.now() + delayMs;
      await this.#store.update({ ...oldest, attempts: oldest.attempts + 1, nextAttemptAt });
      return { kind: 'wait', atMs: nextAttemptAt };
    }
    const toFirstAttempt = this.#settle(oldest.key, outcome);
    await this.#store.remove(oldest.id);
    if (this.#run !== run) return { kind: 'stale' };
    this.#streak = null;
    this.#lastOutcome = outcome.kind;
    // A caller that shows its own refusal (the SMS view) and heard it on the first attempt has
    // said it already; any other refusal is reported here.
    if (outcome.kind === 'refused' && !(toFirstAttempt && oldest.showsRefusal === true)) {
      this.#lastError = { label: oldest.label, error: outcome.error };
    }
    this.#setPending(entries.length - 1);
    return { kind: 'next' };
  }

  /** Calls `send` once, with a timeout; a throw or a timeout counts as a retry. */
  async #sendOnce(run: Run, entry: OutboxEntry): Promise<SendOutcome> {
    const controller = new AbortController();
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<SendOutcome>((resolve) => {
      timer = this.#timers.setTimeout(() => {
        controller.abort();
        resolve({ kind: 'retry', reason: QUEUED.timeout });
      }, this.#attemptTimeoutMs);
    });
    const sent = run.send(entry, { signal: controller.signal }).catch((error: unknown) => {
      this.#log?.error(`Outbox: sending the ${entry.label} failed; retrying later.`, error);
      return { kind: 'retry', reason: errorMessage(error) } satisfies SendOutcome;
    });
    try {
      return await Promise.race([sent, timedOut]);
    } finally {
      if (timer !== undefined) this.#timers.clearTimeout(timer);
    }
  }

  /** The next back-off delay for `entryId` (`null`: not tied to an entry, e.g. a store failure). */
  #nextDelayMs(entryId: number | null): number {
    const streakId = entryId ?? NO_ENTRY;
    if (this.#streak === null || this.#streak.entryId !== streakId) {
      this.#streak = { entryId: streakId, count: 0 };
    }
    const delayMs = this.#retryPolicy.delayMs(this.#streak.count, this.#random);
    this.#streak.count += 1;
    return delayMs;
  }

  #serialized<T>(fn: () => Promise<T>): Promise<T> {
    const attempt = this.#attempts.then(() => this.#lock(OUTBOX_LOCK_NAME, fn));
    this.#attempts = attempt.catch(() => undefined);
    return attempt;
  }

  #onNetworkChange(): void {
    if (!this.#run) return;
    const phase = this.#machine.state;
    if (this.#network.isOnline()) {
      if (phase === 'backingOff' || phase === 'offline') {
        this.#streak = null;
        this.#wake(true);
      }
    } else if (phase === 'backingOff') {
      this.#cancelWakeTimer();
      this.#machine.send('wentOffline');
      this.#publish();
    }
  }

  #cancelWakeTimer(): void {
    if (this.#wakeTimer !== null) this.#timers.clearTimeout(this.#wakeTimer);
    this.#wakeTimer = null;
  }

  /** Gives a first attempt's waiter its outcome; whether one was waiting. */
  #settle(key: string, result: OutboxResult): boolean {
    const waiter = this.#waiters.get(key);
    if (!waiter) return false;
    this.#waiters.delete(key);
    waiter.resolve(result);
    return true;
  }

  /** Stored entries of `userId` still waiting for a first attempt will be tried later. */
  #settleUserWaiters(userId: number, reason: string): void {
    for (const [key, waiter] of [...this.#waiters]) {
      if (waiter.userId === userId && waiter.seq !== null) {
        this.#settle(key, { kind: 'queued', reason });
      }
    }
  }

  /** Waiters whose entry was stored before the read but is gone: another tab sent it. */
  #settleVanished(userId: number, entries: readonly OutboxEntry[], seqAtRead: number): void {
    const stored = new Set(entries.map((entry) => entry.key));
    for (const [key, waiter] of [...this.#waiters]) {
      const storedBeforeRead = waiter.seq !== null && waiter.seq <= seqAtRead;
      if (waiter.userId === userId && storedBeforeRead && !stored.has(key)) {
        this.#settle(key, { kind: 'queued', reason: QUEUED.elsewhere });
      }
    }
  }

  #setPending(pending: number): void {
    this.#pending = pending;
    this.#publish();
  }

  #publish(): void {
    const pending = this.#run ? this.#pending : 0;
    const state = displayState(this.#machine.state, pending, this.#lastOutcome);
    const current = this.#snapshot;
    if (
      current.pending === pending &&
      current.state === state &&
      current.lastError === this.#lastError
    ) {
      return;
    }
    this.#snapshot = Object.freeze({ pending, state, lastError: this.#lastError });
    for (const listener of [...this.#listeners]) listener();
  }
}
