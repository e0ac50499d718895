/**
 * The call's lifecycle (spec section 4):
 *
 * ```
 * incoming:  pending ──accept──▶ connecting ──open──▶ open
 *            pending ──reject | ignore | cancel──▶ closed
 * outgoing:  connecting ──ringing──▶ ringing ──open──▶ open
 *            open ──interrupted──▶ reconnecting ──restored──▶ open
 *            connecting | ringing | open | reconnecting ──disconnect | hangup | fail──▶ closed
 * ```
 * Ignore and reject only from pending; accept is a no-op unless pending; disconnect from open,
 * connecting, reconnecting or ringing.
 */
import type { TransitionTable } from '@leadline/contracts/lib';

/** States of a call, as `call.status()` returns them. */
export const CallState = {
  Pending: 'pending',
  Connecting: 'connecting',
  Ringing: 'ringing',
  Open: 'open',
  Reconnecting: 'reconnecting',
  Closed: 'closed',
} as const;
export type CallState = (typeof CallState)[keyof typeof CallState];

/** What moves a call between states. */
export type CallTransition =
  | 'accept'
  | 'reject'
  | 'ignore'
  | 'cancel'
  | 'ringing'
  | 'open'
  | 'interrupted'
  | 'restored'
  | 'disconnect'
  | 'hangup'
  | 'fail';

const ENDINGS = { disconnect: 'closed', hangup: 'closed', fail: 'closed' } as const;

/** The call's transition table. */
export const CALL_TABLE: TransitionTable<CallState, CallTransition> = {
  pending: {
    accept: 'connecting',
    reject: 'closed',
    ignore: 'closed',
    cancel: 'closed',
    hangup: 'closed',
    fail: 'closed',
  },
  connecting: { ringing: 'ringing', open: 'open', ...ENDINGS },
  ringing: { ringing: 'ringing', open: 'open', ...ENDINGS },
  open: { interrupted: 'reconnecting', ...ENDINGS },
  reconnecting: { restored: 'open', ...ENDINGS },
  closed: {},
};
