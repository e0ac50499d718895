import { statesOf, type TransitionTable } from '../media/state-machine';

/** Events that move a virtual party through its lifecycle. */
export type PartyEvent = 'ring' | 'answer' | 'join' | 'reject' | 'hang-up' | 'leave';

/**
 * Lifecycle of a virtual party: dialled into the room, or a caller already on the line
 * (`join`: an inbound call).
 *
 * ```text
 *   dialling ──ring──▶ ringing ──answer──▶ answered ──hang-up──▶ hung-up
 *      │ │                │                   ▲
 *      │ └──reject────────┴──reject──▶ unanswered
 *      └──────────────join────────────────────┘
 *
 *   every state but gone ──leave──▶ gone
 * ```
 * `hang-up` is the party ending the call itself; `leave` is it leaving the room for any reason.
 */
export const PARTY_TRANSITIONS = {
  dialling: { ring: 'ringing', join: 'answered', reject: 'unanswered', leave: 'gone' },
  ringing: { answer: 'answered', reject: 'unanswered', leave: 'gone' },
  answered: { 'hang-up': 'hung-up', leave: 'gone' },
  'hung-up': { leave: 'gone' },
  unanswered: { leave: 'gone' },
  gone: {},
} as const satisfies TransitionTable<string, PartyEvent>;

/** States of a virtual party. */
export type PartyState = keyof typeof PARTY_TRANSITIONS;

/** Every party state, derived from the table. */
export const PARTY_STATES: PartyState[] = statesOf<PartyState, PartyEvent>(PARTY_TRANSITIONS);
