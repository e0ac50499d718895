import { z } from 'zod';
import { TimeQuery } from './common';
import { PageField, pagedSchema } from './paging';

/** History page size (spec section 9). */
export const HISTORY_PAGE_SIZE = 5;

/** GET /api/v1/mycalls */
export const MyCallsQuery = z.object({
  limit: z.coerce
    .number({ error: 'The limit must be a number.' })
    .int({ error: 'The limit must be a whole number.' })
    .min(1, { error: 'The limit must be at least 1.' })
    .max(50, { error: 'The limit may not be greater than 50.' })
    .default(HISTORY_PAGE_SIZE),
  page: PageField,
  ...TimeQuery.shape,
});
export type MyCallsQuery = z.infer<typeof MyCallsQuery>;

/** Why a call was not answered (spec section 4, history reasons), by status. */
export const HISTORY_REASONS = {
  missed: 'No agents answered',
  offline: 'Outside availability hours',
  busy: 'All agents busy',
} as const;

/**
 * The reasons the history shows, by the call's stored reason code: the spec's three for the
 * agent side, and the lead's side of a call kept apart from them (a busy lead is never 'All
 * agents busy').
 */
export const CALL_REASON_TEXT = {
  'no-agent-answered': 'No agents answered',
  'all-agents-busy': 'All agents busy',
  'outside-hours': 'Outside availability hours',
  'no-agents-online': 'No agents online',
  'caller-hung-up': 'The caller hung up before an agent answered',
  'lead-busy': 'Lead busy',
  'lead-no-answer': 'No Answer',
  'lead-failed': "The lead's number could not be reached",
  'server-restart': 'Interrupted by a server restart',
  'dial-refused': 'The account may not call this number',
} as const;

/** A call's reason code. */
export type CallReasonCode = keyof typeof CALL_REASON_TEXT;

/** A supervisor's action on a call, as the history shows it. */
export const SupervisionEntrySchema = z.strictObject({
  name: z.string(),
  role: z.enum(['listen', 'whisper', 'barge']),
  /** ISO time. */
  at: z.iso.datetime(),
});
/** A supervisor's action on a call, as the history shows it. */
export type SupervisionEntry = z.infer<typeof SupervisionEntrySchema>;

/** A row of the call history (spec section 3 'Call history row'). */
export const HistoryRowSchema = z.strictObject({
  id: z.int(),
  direction: z.enum(['inbound', 'outbound']),
  type: z.string(),
  recording_url: z.string().nullable(),
  /** ISO time the call was created. */
  created_at: z.iso.datetime(),
  /** The same, readable ('Nov 22, 2026, 10:04 AM', UTC). */
  time_formatted: z.string(),
  /** The call's stored status (queued, ringing, in-progress, completed, missed, busy, …). */
  status: z.string(),
  /**
   * What the history shows: missed, busy, offline, in-progress, ringing (and queued, a web lead
   * waiting for an agent); otherwise the duration, or 'No Answer' when seconds is 0.
   */
  status_display: z.string(),
  /** Why it was not answered (or waits), else null. */
  reason: z.string().nullable(),
  seconds: z.int().nonnegative(),
  /** `mm:ss` (or `h:mm:ss`). */
  duration: z.string(),
  /** The Retry button applies (the call has a lead and the user has app-retry). */
  retry: z.boolean(),
  /** The retry payload (POST /api/v1/calls/twilio), or null. */
  lead_retry: z
    .strictObject({ fname: z.string(), lname: z.string(), phone_number: z.string() })
    .nullable(),
  disposition: z.string().nullable(),
  /** The tag chosen in Tags & Stages (disposition2), or null. */
  stage: z.strictObject({ key: z.string(), name: z.string(), color: z.string() }).nullable(),
  /** The notes written about the call, oldest first. */
  notes: z.array(
    z.strictObject({ id: z.int(), content: z.string(), created_at: z.iso.datetime() }),
  ),
  user: z.strictObject({ name: z.string() }).nullable(),
  lead: z
    .strictObject({
      fname: z.string(),
      lname: z.string(),
      label: z.string(),
      phone_number: z.string(),
      phone_number_formatted: z.string(),
    })
    .nullable(),
  phone_number_formatted: z.string().nullable(),
  /**
   * Supervisors who joined the call, as what and when (oldest first); only for users who may
   * supervise (listen, whisper or barge), absent for everyone else.
   */
  supervision: z.array(SupervisionEntrySchema).optional(),
});
/** A row of the call history (spec section 3 'Call history row'). */
export type HistoryRow = z.infer<typeof HistoryRowSchema>;

/** Answer of GET /api/v1/mycalls: one page of the user's call history, newest first. */
export const HistoryPageSchema = pagedSchema(HistoryRowSchema);
