import { z } from 'zod';
import { CallSchema } from './calls';
import { RefusalSchema, SuccessResponseSchema } from './common';
import { LeadSchema } from './leads';
import { PhoneNumber } from './phone';

const positiveId = (field: string) =>
  z.coerce
    .number({ error: `The ${field} field is required.` })
    .int({ error: `The ${field} must be a whole number.` })
    .positive({ error: `The ${field} must be a positive number.` });

/** POST /api/v1/calls/conference: add an agent to the caller's live call. */
export const ConferenceBody = z.object({ user_id: positiveId('user id') });
export type ConferenceBody = z.infer<typeof ConferenceBody>;

/** POST /api/v1/calls/{id}/transfer: to a user or to a team. */
export const TransferBody = z.union(
  [
    z.object({ user_id: positiveId('user id'), call_user_id: positiveId('call user id') }),
    z.object({ team_id: positiveId('team id'), call_user_id: positiveId('call user id') }),
  ],
  { error: 'Give user_id or team_id, and call_user_id.' },
);
export type TransferBody = z.infer<typeof TransferBody>;

/** POST /apps/webrtc/{id}/disposition2: the tag (stage) of the call. */
export const Disposition2Body = z.object({
  key: z
    .string({ error: 'The key field is required.' })
    .trim()
    .min(1, { error: 'The key field is required.' })
    .max(100, { error: 'The key may not be longer than 100 characters.' }),
});
export type Disposition2Body = z.infer<typeof Disposition2Body>;

/** The default follow-up text (spec section 4). */
export const DEFAULT_SMS_TEXT = "Sorry we couldn't reach you!";

/** POST /apps/webrtc/{id}/sms */
export const SmsBody = z.object({
  smsbody: z
    .string({ error: 'The smsbody field is required.' })
    .trim()
    .min(1, { error: 'The smsbody field is required.' })
    .max(1600, { error: 'The smsbody may not be longer than 1600 characters.' }),
});
export type SmsBody = z.infer<typeof SmsBody>;

/** Answer of POST /apps/webrtc/{id}/sms: sent, or the sender's refusal in its words. */
export const SmsResponseSchema = z.union([SuccessResponseSchema, RefusalSchema]);
/** Answer of POST /apps/webrtc/{id}/sms. */
export type SmsResponse = z.infer<typeof SmsResponseSchema>;

/** Answer of PUT /api/v1/calls/{id}/hold and /unhold: whether the lead is on hold now. */
export const HoldResponseSchema = z.strictObject({ success: z.literal(true), held: z.boolean() });
/** Answer of PUT /api/v1/calls/{id}/hold and /unhold. */
export type HoldResponse = z.infer<typeof HoldResponseSchema>;

/** POST /api/v1/calls/conferencelead: add a lead to a call that has none, and dial it in. */
export const ConferenceLeadBody = z.object({
  call_id: positiveId('call id'),
  fname: z.string().trim().max(100).default(''),
  lname: z.string().trim().max(100).default(''),
  phone_number: PhoneNumber,
});
export type ConferenceLeadBody = z.infer<typeof ConferenceLeadBody>;

/** What the added lead's phone did: answered (it joined the call), or why it did not. */
export const ADD_LEAD_OUTCOMES = ['answered', 'busy', 'no-answer', 'failed', 'timeout'] as const;

/**
 * Answer of POST /api/v1/calls/conferencelead: `success` when the lead answered and joined;
 * otherwise `error` says why and the call goes on without it. `call` is the call as it is now
 * (with the lead when it joined), `lead` the lead that was created.
 */
export const ConferenceLeadResponseSchema = z.union([
  z.strictObject({
    success: z.literal(true),
    outcome: z.literal('answered'),
    call: CallSchema,
    lead: LeadSchema,
  }),
  z.strictObject({
    success: z.literal(false),
    outcome: z.enum(ADD_LEAD_OUTCOMES).exclude(['answered']),
    error: z.string().min(1),
    call: CallSchema,
    lead: LeadSchema,
  }),
]);
/** Answer of POST /api/v1/calls/conferencelead. */
export type ConferenceLeadResponse = z.infer<typeof ConferenceLeadResponseSchema>;

/** POST /twilio/debug/webrtc: the console reports a disconnect that was not a clean close. */
export const DebugWebrtcBody = z.object({
  user: z.union([z.string().max(200), z.number()]).optional(),
  conn_status: z.string().max(200).optional(),
});
export type DebugWebrtcBody = z.infer<typeof DebugWebrtcBody>;

/** POST /api/v1/pusher/auth (form or JSON), as pusher-js sends it. */
export const PusherAuthBody = z.object({
  socket_id: z
    .string({ error: 'The socket_id field is required.' })
    .regex(/^\d+\.\d+$/, { error: 'The socket_id is not a valid socket id.' }),
  channel_name: z
    .string({ error: 'The channel_name field is required.' })
    .min(1, { error: 'The channel_name field is required.' })
    .max(164, { error: 'The channel_name may not be longer than 164 characters.' }),
});
export type PusherAuthBody = z.infer<typeof PusherAuthBody>;
