/**
 * A client call as the gateway sees it: the signalling side of one client's leg in a room.
 *
 * ```
 * incoming:  inviting ──answer──▶ live ──end──▶ ended
 * outgoing:  offered ──proceed──▶ ringing ──connect──▶ live ──end──▶ ended
 *            (offered ──connect──▶ live; any ──end──▶ ended)
 * socket lost:  live ──detach──▶ reconnecting ──attach──▶ live   (reconnecting ──end──▶ ended)
 * ```
 */
import { StateMachine, type TransitionTable } from '@leadline/contracts/lib';
import type { ParticipantRole } from '../media/media-engine';
import type { ClientSession } from './client-session';

/** States of a client call. */
export type ClientCallState =
  'inviting' | 'offered' | 'ringing' | 'live' | 'reconnecting' | 'ended';
/** Events of a client call. */
export type ClientCallEvent = 'answer' | 'proceed' | 'connect' | 'detach' | 'attach' | 'end';

/** The client call's transition table. */
export const CALL_TABLE: TransitionTable<ClientCallState, ClientCallEvent> = {
  inviting: { answer: 'live', end: 'ended' },
  offered: { proceed: 'ringing', connect: 'live', end: 'ended' },
  ringing: { connect: 'live', end: 'ended' },
  live: { detach: 'reconnecting', end: 'ended' },
  reconnecting: { attach: 'live', end: 'ended' },
  ended: {},
};

/** A device rung for an incoming call, with its own offer leg. */
export interface PendingInvite {
  session: ClientSession;
  participantId: string;
}

/** What a client call is created with. */
export interface ClientCallInit {
  /** The call's id on the wire (`callsid`): the room's sid for its first leg, else a fresh `CA…`. */
  wireSid: string;
  /** The room (the server's call sid). */
  roomSid: string;
  identity: string;
  direction: 'incoming' | 'outgoing';
  role: ParticipantRole;
  /** Outgoing: the client's temporary call id, which it may still use. */
  clientCallSid?: string;
}

/** One client call. */
export class ClientCall {
  readonly #machine: StateMachine<ClientCallState, ClientCallEvent>;
  readonly wireSid: string;
  readonly roomSid: string;
  readonly identity: string;
  readonly direction: 'incoming' | 'outgoing';
  readonly clientCallSid: string | null;
  /** How the client takes part in the room. */
  role: ParticipantRole;
  /** Incoming: the devices still ringing. */
  readonly invites = new Map<string, PendingInvite>();
  /** The device on the call (incoming: the one that answered; outgoing: the caller). */
  session: ClientSession | null = null;
  /** The media participant of `session`. */
  participantId: string | null = null;
  /** Outgoing: the engine's answer SDP, sent with `ringing` and `answer`. */
  localSdp: string | null = null;
  /** The token a client presents to take the call over on a new socket. */
  reconnectToken: string | null = null;
  /** While `reconnecting`: the timer that ends the call when nobody reconnects. */
  graceTimer: unknown = null;

  constructor(init: ClientCallInit) {
    this.wireSid = init.wireSid;
    this.roomSid = init.roomSid;
    this.identity = init.identity;
    this.direction = init.direction;
    this.role = init.role;
    this.clientCallSid = init.clientCallSid ?? null;
    this.#machine = new StateMachine(
      'client call',
      CALL_TABLE,
      init.direction === 'incoming' ? 'inviting' : 'offered',
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

  /**
   * The `callsid` a frame to the client names this call by now: an outgoing call is known to its
   * client only by its temporary id until `ringing` or `answer` has given it the sid (while it is
   * `offered`); every other call, by its sid. Both SDKs match a frame against the ids they hold
   * (their temporary id and a sid they were given), so a sid the client was never given names no
   * call of theirs. Read it before ending the call.
   */
  get frameSid(): string {
    return this.is('offered') && this.clientCallSid !== null ? this.clientCallSid : this.wireSid;
  }

  /** Whether `callsid` names this call on the wire (its sid or, outgoing, the client's id). */
  isNamed(callsid: string): boolean {
    return callsid === this.wireSid || callsid === this.clientCallSid;
  }
}
