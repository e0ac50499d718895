import { z } from 'zod';
import { PhoneNumber } from './phone';
import type { Lead } from './leads';

const name = z.string().trim().max(100);

/**
 * POST /api/v1/calls/twilio/outbound: the agent places a call to a (new or known) lead.
 * The answer's `call_user_id` goes into the softphone's connect params with the `To` number.
 */
export const OutboundCallBody = z.object({
  fname: name.default(''),
  lname: name.default(''),
  phone_number: PhoneNumber,
  /** The agent placing the call; must be the signed-in user. */
  agent_id: z.coerce.number({ error: 'The agent id field is required.' }).int().positive(),
  /** The client (`desktop` for the console). */
  interface: z.optional(z.string().max(40)),
  /** A caller number of the account to call from; the account's default when absent. */
  caller_id: z.optional(z.coerce.number().int().positive()),
});
export type OutboundCallBody = z.infer<typeof OutboundCallBody>;

/** Answer of POST /api/v1/calls/twilio/outbound. */
export interface OutboundCallResponse {
  success: true;
  call_user_id: number;
  call: { id: number; lead: Lead; phone_number: string };
}

/** POST /api/v1/calls/twilio (Retry): call the same lead again. */
export const RetryCallBody = z.object({
  fname: name.default(''),
  lname: name.default(''),
  phone_number: PhoneNumber,
  /** A caller number of the account to call from; the account's default when absent. */
  caller_id: z.optional(z.coerce.number().int().positive()),
});
export type RetryCallBody = z.infer<typeof RetryCallBody>;

/** A caller number as GET /api/v1/callerids lists it. */
export interface CallerNumber {
  id: number;
  name: string;
  phone_number_formatted: string;
}
