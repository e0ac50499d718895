/** What the signalling gateway tells, asks for and reports (`signalling-gateway.ts`). */
import type { WireError } from '@leadline/contracts/signalling';
import type { ClientLeftReason } from '@leadline/contracts/telephony';
import type { MediaEngine } from '../media/media-engine';
import type { ClientCallCounts } from './client-calls';
import type { TokenCheck } from './client-session';
import type { Clock } from './clock';

// Why a client's side of a call ended: the telephony port's word (`agent.left`).
export type { ClientLeftReason };

/** Events of the gateway, by name; `callSid` is always the room's sid. */
export interface GatewayEvents extends Record<string, unknown[]> {
  /** The identity's first device registered. */
  'device.online': [identity: string];
  /** The identity's last registered device went away. */
  'device.offline': [identity: string];
  /** A device answered an incoming call (its leg is set up). */
  'call.answered': [callSid: string, identity: string];
  /** Every device rung for an incoming call rejected it. */
  'call.rejected': [callSid: string, identity: string];
  /** An outgoing call was accepted by `authorizeOutgoing` and its leg is ready. */
  'call.outgoing': [callSid: string, identity: string, params: Record<string, string>];
  /**
   * The client's side of a call ended on the client's side: it hung up, its leg failed, or its
   * socket was lost (and, for a live call, nobody reconnected within the grace period); or an
   * outgoing call `authorizeOutgoing` accepted could not be placed (its offer was unusable, or
   * the socket went while it was being authorised).
   */
  'call.left': [callSid: string, identity: string, reason: ClientLeftReason];
  /** Digits the client sent over signalling. */
  'call.dtmf': [callSid: string, identity: string, digits: string];
}

/** An authenticated socket, as `clients()` lists it and `revoke()` asks about it. */
export interface SignallingClient {
  identity: string;
  /** The login session its token was issued to (`TokenCheck.session`). */
  session: string | undefined;
}

/**
 * Sizes of the gateway's bookkeeping (`stats()`): each is back where it was once the sockets and
 * calls that added to it are gone.
 */
export interface GatewayStats extends ClientCallCounts {
  /** Open sockets. */
  sessions: number;
}

/** The owner's answer to an outgoing call: the call's sid (its room), or a refusal. */
export type OutgoingDecision = { callSid: string } | { error: WireError };

/** What the gateway needs. */
export interface GatewayOptions {
  media: MediaEngine;
  /** Checks an access token (the server holds the secret). */
  verifyToken(token: string): Promise<TokenCheck>;
  /** Decides an outgoing call from its connect params. */
  authorizeOutgoing(identity: string, params: Record<string, string>): Promise<OutgoingDecision>;
  clock?: Clock;
  /** How long a live call waits for its client to reconnect after a lost socket (default 30 s). */
  reconnectGraceMs?: number;
}
