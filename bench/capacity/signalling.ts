/**
 * What the capacity load generator needs of a system's signalling: setting up one two-party
 * call (both legs' media connected), and ending them all.
 */
import type { Leg } from './leg';

export interface CallSignalling {
  /** Sets call `call` up: both legs joined in one room, their media connected. */
  setUpCall(call: number, legs: readonly [Leg, Leg]): Promise<void>;
  /** Ends every call it set up and closes its connections. */
  close(): Promise<void>;
}
