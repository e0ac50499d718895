import { z } from 'zod';
import { PhoneNumber } from './phone';
import { CallSchema, type Call } from './calls';
import { LeadSchema, type Lead } from './leads';

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

/**
 * Answer of POST /api/v1/calls/twilio/outbound: the call user the softphone connects with, and
 * the call as GET /api/v1/callusers/{id} would give it (the console goes on from this call
 * without loading it again: its profile is what Tags & Stages shows), with its lead and number.
 */
export const OutboundCallResponseSchema = z.strictObject({
  success: z.literal(true),
  call_user_id: z.int(),
  call: CallSchema.extend({ lead: LeadSchema, phone_number: z.string().min(1) }),
});

/** Answer of POST /api/v1/calls/twilio/outbound. */
export interface OutboundCallResponse {
  success: true;
  call_user_id: number;
  /** The whole call resource; a placed call always has its lead and number. */
  call: Call & { lead: Lead; phone_number: string };
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

/** The call Retry placed: its id and status, the agent rung for it (or null), and its lead. */
const RetriedCallSchema = z.strictObject({
  id: z.int(),
  status: z.string().min(1),
  agent_id: z.int().nullable(),
  lead: LeadSchema,
});

/**
 * Answer of POST /api/v1/calls/twilio (Retry): `success` only when an agent is being rung for
 * the call; otherwise `error` says why nobody is (the call was placed either way).
 */
export const RetryCallResponseSchema = z.union([
  z.strictObject({ success: z.literal(true), call: RetriedCallSchema }),
  z.strictObject({ success: z.literal(false), error: z.string().min(1), call: RetriedCallSchema }),
]);
/** Answer of POST /api/v1/calls/twilio (Retry). */
export type RetryCallResponse = z.infer<typeof RetryCallResponseSchema>;

/** A caller number as GET /api/v1/callerids lists it. */
export const CallerNumberSchema = z.strictObject({
  id: z.int(),
  name: z.string(),
  phone_number_formatted: z.string(),
});
/** A caller number as GET /api/v1/callerids lists it. */
export type CallerNumber = z.infer<typeof CallerNumberSchema>;

/**
 * Answer of GET /api/v1/callerids: the account's caller numbers, as `{ data: [...] }` (spec
 * section 7 says a bare list; README: where we depart from the spec).
 */
export const CallerNumbersResponseSchema = z.strictObject({ data: z.array(CallerNumberSchema) });
