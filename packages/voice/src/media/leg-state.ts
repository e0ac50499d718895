import { statesOf, type TransitionTable } from './state-machine';

/** Events that move a WebRTC leg through its lifecycle. */
export type LegEvent =
  | 'offer'
  | 'offered'
  | 'accept'
  | 'answer'
  | 'answered'
  | 'connect'
  | 'interrupt'
  | 'fail'
  | 'close';

/**
 * Lifecycle of a WebRTC leg.
 *
 * ```text
 *   new ──offer──▶ offering ──offered──▶ awaiting-answer ──accept──▶ connecting ──connect──▶ connected
 *    │                                                                  ▲
 *    └──answer──▶ answering ──────────────answered──────────────────────┘
 *
 *   connected ──interrupt──▶ interrupted ──connect──▶ connected
 *
 *   any live state ──fail──▶ failed      any state but failed ──close──▶ closed
 * ```
 * `fail` is ICE/DTLS failure, a remote close or a failed negotiation; `close` is the engine
 * hanging the leg up. `interrupt` is ICE failing shortly after the client restarted it (its
 * media is broken and it is retrying): the leg waits for a later restart to `connect` again,
 * and `fail`s if none does in time.
 */
export const LEG_TRANSITIONS = {
  new: { offer: 'offering', answer: 'answering', close: 'closed' },
  offering: { offered: 'awaiting-answer', fail: 'failed', close: 'closed' },
  'awaiting-answer': { accept: 'connecting', fail: 'failed', close: 'closed' },
  answering: { answered: 'connecting', fail: 'failed', close: 'closed' },
  connecting: { connect: 'connected', fail: 'failed', close: 'closed' },
  connected: { interrupt: 'interrupted', fail: 'failed', close: 'closed' },
  interrupted: { connect: 'connected', fail: 'failed', close: 'closed' },
  failed: { close: 'closed' },
  closed: {},
} as const satisfies TransitionTable<string, LegEvent>;

/** States of a WebRTC leg. */
export type LegState = keyof typeof LEG_TRANSITIONS;

/** Every leg state, derived from the table. */
export const LEG_STATES: LegState[] = statesOf<LegState, LegEvent>(LEG_TRANSITIONS);
