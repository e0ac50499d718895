/**
 * The server's one telephony port. Call flows and call-control endpoints use only this; the
 * embedded voice engine implements it (`@leadline/voice`'s `VoiceEngine`), and a production
 * provider implements the same shape.
 */
import type { TelephonyEvent } from '@leadline/voice';
import type { WireError } from '@leadline/contracts/signalling';

export type { TelephonyEvent };

/** Commands the server gives its telephony provider; events come back through `subscribe`. */
export interface Telephony {
  /** Whether a device of the identity is registered. */
  isOnline(identity: string): boolean;
  /** Rings the identity's devices with an incoming call; resolves with how many ring. */
  ringAgent(callSid: string, identity: string, params: Record<string, string>): Promise<number>;
  /** Stops ringing an agent who has not answered. */
  cancelRing(callSid: string): void;
  /** Dials a phone number (E.164) into the call. */
  dial(callSid: string, number: string): void;
  /** Ends the whole call for everyone in it. */
  hangup(callSid: string, error?: WireError): void;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: TelephonyEvent) => void): () => void;
}
