import { z } from 'zod';
import type { Lead } from './leads';

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
export interface Tag {
  id: number;
  key: string;
  name: string;
  color: string;
}

/** Call types (spec section 3); anything else is an ordinary lead call. */
export type CallType = 'lead' | 'conference' | 'transfer' | 'listen' | 'whisper' | 'barge';

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
  profile: { id: number; is_deal_whispertext: boolean; auto_answer: boolean; tags: Tag[] } | null;
  number: { name: string; account_id: number; phone_number_formatted: string } | null;
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

/** Answer of GET /api/v1/callusers/{id}. */
export interface CallUserResponse {
  call: Call;
  type: CallType;
  autoaccept: boolean;
}

/** Answer of the mutating call endpoints that the spec says 'not shown'. */
export interface SuccessResponse {
  success: true;
}
