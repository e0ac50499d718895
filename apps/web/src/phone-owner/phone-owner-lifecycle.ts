/**
 * Which tab owns the softphone, as one lifecycle: a state value and a transition table (data).
 * {@link PhoneOwner} asks the Web Lock for the phone and feeds the answers in; an event the
 * current state does not list throws {@link PhoneOwnerTransitionError}.
 *
 * ```text
 *              start                  granted (the lock was free)
 *   stopped ──────────▶ electing ─────────────────────────────────▶ owner
 *      ▲                   │                                       ▲  │  ▲
 *      │                   │ denied (another tab holds it)         │  │  │ granted
 *      │                   ▼                     granted (the      │  │  │
 *      │               follower ─────────────── owner's tab ───────┘  │  │
 *      │                │  ▲  ▲                 closed)               │  │
 *      │       takeOver │  │  └───────── lost (another tab took it) ──┘  │
 *      │                ▼  │ denied (the steal failed)                   │
 *      │            takingOver ──────────────────────────────────────────┘
 *      │
 *      └── stop: from every state but stopped
 * ```
 *
 * Only `owner` runs the softphone (registers, rings, takes the microphone). A `follower` waits
 * in the lock's queue, so it gets the phone as soon as the owner's tab closes, and shows what
 * the owner publishes; `takingOver` is the one click of "Use phone here" on its way.
 */
import { statesOf, type TransitionTable } from '@leadline/contracts/lib';
import { WebError } from '../errors';

/** Where this tab stands with the phone. */
export type PhoneOwnerState = 'stopped' | 'electing' | 'owner' | 'follower' | 'takingOver';

/** What moves it. */
export type PhoneOwnerEvent = 'start' | 'granted' | 'denied' | 'takeOver' | 'lost' | 'stop';

/** The transition table: state → event → next state. */
export const PHONE_OWNER_TRANSITIONS: TransitionTable<PhoneOwnerState, PhoneOwnerEvent> = {
  stopped: { start: 'electing' },
  electing: { granted: 'owner', denied: 'follower', stop: 'stopped' },
  follower: { granted: 'owner', takeOver: 'takingOver', stop: 'stopped' },
  takingOver: { granted: 'owner', denied: 'follower', stop: 'stopped' },
  owner: { lost: 'follower', stop: 'stopped' },
};

/** Every state, derived from the table. */
export const PHONE_OWNER_STATES: readonly PhoneOwnerState[] = statesOf(PHONE_OWNER_TRANSITIONS);

/** States in which another tab owns the phone (this one shows its state and may take over). */
export const ELSEWHERE_STATES: ReadonlySet<PhoneOwnerState> = new Set(['follower', 'takingOver']);

/** Thrown when the lifecycle is sent an event its state does not accept (a bug). */
export class PhoneOwnerTransitionError extends WebError {
  readonly state: string;
  readonly event: string;

  constructor(state: string, event: string) {
    super(
      'IllegalTransitionError',
      `The phone owner cannot handle "${event}" in the "${state}" state.`,
    );
    this.state = state;
    this.event = event;
  }
}
