/**
 * The outbox's drain loop as one lifecycle: a phase value and a transition table (data). The
 * {@link Outbox} performs the effects (store, timers, `send`) and feeds events in; an event the
 * current phase does not list throws {@link OutboxTransitionError}.
 *
 * ```text
 *              start
 *   stopped ──────────▶ idle ◀──────────── drained (the user's queue is empty) ──┐
 *      ▲                 │                                                        │
 *      │                 │ wake (an entry was enqueued; start looks for stored ones)
 *      │                 ▼                                                        │
 *      │              sending ────────────────────────────────────────────────────┘
 *      │               │  ▲  ▲ wake (online event)
 *      │               │  │  └──────────────────────────────┐
 *      │       backOff │  │ wake (timer, or online event)   │
 *      │               ▼  │                                 │
 *      │            backingOff ────── wentOffline ──────▶ offline ◀── wentOffline (from sending:
 *      │                                                                online() is false)
 *      └── stop: from every phase but stopped
 * ```
 *
 * `sending` covers one attempt after another (take the Web Lock, read the oldest entry, send it,
 * record the outcome) until the user's queue is empty or an attempt must wait.
 */
import { statesOf, type TransitionTable } from '@leadline/contracts/lib';
import { WebError } from '../errors';

/** The phases of the drain loop. */
export type OutboxPhase = 'stopped' | 'idle' | 'sending' | 'backingOff' | 'offline';

/** What moves the drain loop. */
export type OutboxPhaseEvent = 'start' | 'stop' | 'wake' | 'drained' | 'backOff' | 'wentOffline';

/** The drain loop's transition table: phase → event → next phase. */
export const OUTBOX_TRANSITIONS: TransitionTable<OutboxPhase, OutboxPhaseEvent> = {
  stopped: { start: 'idle' },
  idle: { wake: 'sending', stop: 'stopped' },
  sending: { drained: 'idle', backOff: 'backingOff', wentOffline: 'offline', stop: 'stopped' },
  backingOff: { wake: 'sending', wentOffline: 'offline', stop: 'stopped' },
  offline: { wake: 'sending', stop: 'stopped' },
};

/** Every phase, derived from the table. */
export const OUTBOX_PHASES: readonly OutboxPhase[] = statesOf(OUTBOX_TRANSITIONS);

/** Thrown when the drain loop is sent an event its phase does not accept (a bug in the outbox). */
export class OutboxTransitionError extends WebError {
  readonly phase: string;
  readonly event: string;

  constructor(phase: string, event: string) {
    super('IllegalTransitionError', `The outbox cannot handle "${event}" in the "${phase}" phase.`);
    this.phase = phase;
    this.event = event;
  }
}

/**
 * What the discreet indicator shows: `idle` (nothing to send), `saving` (entries are going out),
 * `waiting` (offline, or backing off before a retry), `saved` (the queue just drained with a
 * delivery; it stays until the next change, the view decides how long to show it).
 */
export type OutboxDisplayState = 'idle' | 'saving' | 'waiting' | 'saved';

/** The last entry the server refused for good. */
export interface OutboxError {
  /** The entry's label, e.g. `'note'`. */
  readonly label: string;
  /** The server's text. */
  readonly error: string;
}

/** The outbox's observable status (one object per change, for `useSyncExternalStore`). */
export interface OutboxSnapshot {
  /** How many entries of the signed-in user are stored (0 when stopped). */
  readonly pending: number;
  readonly state: OutboxDisplayState;
  /** The last refusal, until {@link Outbox.dismissError} or `stop()`. */
  readonly lastError: OutboxError | null;
}

/** How the last entry of this run ended (`null` before any). */
export type LastOutcome = 'done' | 'refused' | null;

/** The indicator's state for a phase, the pending count and how the last entry ended. */
export function displayState(
  phase: OutboxPhase,
  pending: number,
  lastOutcome: LastOutcome,
): OutboxDisplayState {
  if (phase === 'stopped') return 'idle';
  if (phase === 'backingOff' || phase === 'offline') return 'waiting';
  if (pending > 0) return 'saving';
  return lastOutcome === 'done' ? 'saved' : 'idle';
}
