/**
 * The telephony port: what a server's call flows command and hear. The embedded engine
 * (`VoiceEngine`, `@leadline/voice`) implements it, and so does a production provider in the
 * server (Twilio's).
 * `callSid` always names the whole call (the engine's room); an agent's side of it is
 * (callSid, identity); a phone party's is the id `dial` or `addCaller` returned, which its
 * `phone.*` events carry.
 */
import type { WireError } from '../signalling/messages';
import type { AgentRole } from './participant';
import type { TelephonyEvent } from './telephony-event';

/** Commands the server gives its telephony provider; events come back through `subscribe`. */
export interface Telephony {
  /** Whether a device of the identity is registered. */
  isOnline(identity: string): boolean;
  /** Rings the identity's devices to join the call in `role`; resolves with how many ring. */
  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options?: { role?: AgentRole },
  ): Promise<number>;
  /** Stops ringing agents who have not answered (one identity, or everyone). */
  cancelRing(callSid: string, identity?: string): void;
  /**
   * Dials a phone number (E.164) into the call from the caller ID `from` (one of the account's
   * numbers; none: the provider's default). Returns the phone party's id.
   */
  dial(callSid: string, number: string, options?: { from?: string }): string;
  /** A (sandbox) caller already on the line joins the call: an inbound call. Returns its id. */
  addCaller(callSid: string, from: string, to: string): string;
  /** One phone party leaves the call (the others stay); no `phone.left` follows. */
  hangupPhone(callSid: string, participantId: string): void;
  /** Changes how an agent takes part (e.g. whisper → barge). */
  setRole(callSid: string, identity: string, role: AgentRole): void;
  /** One agent leaves the call; the others stay (transfer). */
  removeAgent(callSid: string, identity: string): void;
  /** The lead hears hold music; agents and lead stop hearing each other. */
  hold(callSid: string): void;
  /** Ends the hold. */
  unhold(callSid: string): void;
  /** Ends the whole call for everyone in it. */
  hangup(callSid: string, error?: WireError): void;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: TelephonyEvent) => void): () => void;
}
