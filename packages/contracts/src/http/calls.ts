import { z } from 'zod';
import type { SuccessResponseSchema } from './common';
import { LeadSchema, type Lead } from './leads';

/** Outcomes an agent records after a call (spec section 2, Call Result view). */
export const DISPOSITIONS = ['contacted', 'voicemail', 'missed', 'removed'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

/** POST /apps/webrtc/{id}/disposition */
export const DispositionBody = z.object({
  status: z.enum(DISPOSITIONS, {
    error: 'The status must be one of contacted, voicemail, missed, removed.',
  }),
});
export type DispositionBody = z.infer<typeof DispositionBody>;

/** POST /api/v1/notes */
export const NoteBody = z.object({
  content: z
    .string({ error: 'The content field is required.' })
    .trim()
    .min(1, { error: 'The content field is required.' })
    .max(10_000, { error: 'The content may not be longer than 10000 characters.' }),
  call_id: z.coerce.number({ error: 'The call id field is required.' }).int().positive(),
});
export type NoteBody = z.infer<typeof NoteBody>;

/** A tag of a profile (Tags & Stages view). */
export const TagSchema = z.strictObject({
  id: z.int(),
  key: z.string().min(1),
  name: z.string(),
  color: z.string(),
});
/** A tag of a profile (Tags & Stages view). */
export type Tag = z.infer<typeof TagSchema>;

/** Call types (spec section 3); anything else is an ordinary lead call. */
export const CALL_TYPES = ['lead', 'conference', 'transfer', 'listen', 'whisper', 'barge'] as const;
/** Call types (spec section 3); anything else is an ordinary lead call. */
export type CallType = (typeof CALL_TYPES)[number];

/**
 * The call's profile as the console loads it: whether its deals are whispered, whether its calls
 * are answered automatically, and its tags (Tags & Stages).
 */
export const CallProfileSchema = z.strictObject({
  id: z.int(),
  is_deal_whispertext: z.boolean(),
  auto_answer: z.boolean(),
  tags: z.array(TagSchema),
});

/** The caller number a call came in on or goes out from. */
export const CallNumberSchema = z.strictObject({
  name: z.string(),
  account_id: z.int(),
  phone_number_formatted: z.string(),
});

/**
 * A call as the server sends it (spec section 3): `call` of GET /api/v1/callusers/{id}, of
 * POST /api/v1/calls/twilio/outbound and of POST /api/v1/calls/conferencelead. Stricter than
 * the {@link Call} type: the server always sends `phone_number_formatted` and `agent_name`
 * (the console reads both), while the console also builds calls of its own without them.
 */
export const CallSchema = z.strictObject({
  id: z.int(),
  type: z.enum(CALL_TYPES),
  direction: z.enum(['inbound', 'outbound']),
  status: z.string().min(1),
  lead: LeadSchema.nullable(),
  lead_id: z.int().nullable(),
  account_id: z.int(),
  profile_id: z.int().nullable(),
  profile: CallProfileSchema.nullable(),
  number: CallNumberSchema.nullable(),
  phone_number: z.string().nullable(),
  phone_number_formatted: z.string().nullable(),
  seconds_since_started_at: z.int().nonnegative(),
  held: z.boolean(),
  agent_name: z.string().nullable(),
});

/** A call as the console loads it (spec section 3). */
export interface Call {
  id: number;
  type: CallType;
  direction: 'inbound' | 'outbound';
  status: string;
  lead: Lead | null;
  lead_id: number | null;
  account_id: number;
  profile_id: number | null;
  profile: z.infer<typeof CallProfileSchema> | null;
  number: z.infer<typeof CallNumberSchema> | null;
  phone_number: string | null;
  /** `phone_number` formatted for display (international notation). */
  phone_number_formatted?: string | null;
  /** Seconds since the call started (answered, else created): listen, whisper and barge timers start here. */
  seconds_since_started_at: number;
  /** The lead is on hold. */
  held: boolean;
  /** The agent who took the call (whose call a supervisor joins), or null. */
  agent_name?: string | null;
}

/** Answer of GET /api/v1/callusers/{id}: the call behind an incoming call. */
export const CallUserResponseSchema = z.strictObject({
  call: CallSchema,
  type: z.enum(CALL_TYPES),
  autoaccept: z.boolean(),
});

/** Answer of GET /api/v1/callusers/{id}. */
export interface CallUserResponse {
  call: Call;
  type: CallType;
  autoaccept: boolean;
}

/** Answer of the mutating call endpoints that the spec says 'not shown'. */
export type SuccessResponse = z.infer<typeof SuccessResponseSchema>;

/** A call's id and status now, as the answers of Ignore, Check for lead and Retry name it. */
export const CallStatusSchema = z.strictObject({ id: z.int(), status: z.string().min(1) });

/**
 * Answer of POST /apps/webrtc/{id}/reject (Ignore): what became of the call (rung to the next
 * agent, waiting, or ended).
 */
export const RejectResponseSchema = z.strictObject({
  success: z.literal(true),
  call: CallStatusSchema,
});
/** Answer of POST /apps/webrtc/{id}/reject. */
export type RejectResponse = z.infer<typeof RejectResponseSchema>;

/** Answer of POST /api/v1/notes (201): the note's id. */
export const NoteResponseSchema = z.strictObject({
  success: z.literal(true),
  note: z.strictObject({ id: z.int() }),
});
/** Answer of POST /api/v1/notes. */
export type NoteResponse = z.infer<typeof NoteResponseSchema>;

/**
 * Answer of POST /apps/webrtc/check (Check for lead): the waiting lead's call the agent is rung
 * for, or why not (`No leads waiting.`, or a lead waits that this agent cannot take now, `call`
 * naming it).
 */
export const CheckForLeadResponseSchema = z.union([
  z.strictObject({ success: z.literal(true), call: CallStatusSchema }),
  z.strictObject({
    success: z.literal(false),
    error: z.string().min(1),
    call: z.strictObject({ id: z.int() }).optional(),
  }),
]);
/** Answer of POST /apps/webrtc/check. */
export type CheckForLeadResponse = z.infer<typeof CheckForLeadResponseSchema>;
