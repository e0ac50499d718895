/**
 * A call as the gateway sees it: the signalling side of one client's leg.
 *
 * ```
 * incoming:  inviting ──answer──▶ live ──end──▶ ended
 * outgoing:  offered ──proceed──▶ ringing ──connect──▶ live ──end──▶ ended
 *            (offered ──connect──▶ live; any ──end──▶ ended)
 * ```
 */
import { StateMachine, type TransitionTable } from '@leadline/contracts/lib';
import type { ClientSession } from './client-session';

/** States of a client call. */
export type ClientCallState = 'inviting' | 'offered' | 'ringing' | 'live' | 'ended';
type ClientCallEvent = 'answer' | 'proceed' | 'connect' | 'end';

const CALL_TABLE: TransitionTable<ClientCallState, ClientCallEvent> = {
  inviting: { answer: 'live', end: 'ended' },
  offered: { proceed: 'ringing', connect: 'live', end: 'ended' },
  ringing: { connect: 'live', end: 'ended' },
  live: { end: 'ended' },
  ended: {},
};

/** A device rung for an incoming call, with its own offer leg. */
export interface PendingInvite {
  session: ClientSession;
  participantId: string;
}

/** One client call. */
export class ClientCall {
  readonly #machine: StateMachine<ClientCallState, ClientCallEvent>;
  /** Incoming: the devices still ringing. */
  readonly invites = new Map<string, PendingInvite>();
  /** The device on the call (incoming: the one that answered; outgoing: the caller). */
  session: ClientSession | null = null;
  /** The media participant of `session`. */
  participantId: string | null = null;
  /** Outgoing: the engine's answer SDP, sent with `ringing` and `answer`. */
  localSdp: string | null = null;

  constructor(
    readonly callSid: string,
    readonly identity: string,
    readonly direction: 'incoming' | 'outgoing',
    /** Outgoing: the client's temporary call id, which it may still use. */
    readonly clientCallSid: string | null = null,
  ) {
    this.#machine = new StateMachine(
      'client call',
      CALL_TABLE,
      direction === 'incoming' ? 'inviting' : 'offered',
    );
  }

  /** The current state. */
  get state(): ClientCallState {
    return this.#machine.state;
  }

  /** Whether the call is in `state` (read fresh, e.g. after an await). */
  is(state: ClientCallState): boolean {
    return this.#machine.state === state;
  }

  /** Whether `event` is allowed now. */
  can(event: ClientCallEvent): boolean {
    return this.#machine.can(event);
  }

  /** Applies a transition (throws on an illegal one). */
  send(event: ClientCallEvent): ClientCallState {
    return this.#machine.send(event);
  }
}
