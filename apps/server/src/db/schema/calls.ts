/**
 * Leads and their calls: the call, the users rung for it and the phones on it, the dials counted
 * against the limits, supervision, notes and SMS follow-ups. (The schema's index is
 * `../schema.ts`.)
 */
import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { CallType } from '@leadline/contracts';
import type { CallStatus } from '../../calls/call-status';
import { createdAt } from './columns';
import { accounts, users, teams } from './accounts';
import { profiles, callerNumbers } from './catalog';

/** A person to call. */
export const leads = pgTable(
  'leads',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    profileId: integer('profile_id').references(() => profiles.id),
    fname: text('fname').notNull(),
    lname: text('lname').notNull().default(''),
    phoneNumber: text('phone_number').notNull(),
    email: text('email'),
    company: text('company'),
    category: text('category'),
    sourceId: text('source_id'),
    crm: text('crm'),
    profilePicture: text('profile_picture'),
    createdAt: createdAt(),
  },
  (t) => [
    index('leads_account_idx').on(t.accountId, t.createdAt),
    // Retry and New Call look a lead up by its number.
    index('leads_account_phone_idx').on(t.accountId, t.phoneNumber),
  ],
);
/** Why a call was not answered, or why a web lead waits (history reasons). */
export type CallReason =
  | 'no-agent-answered'
  | 'all-agents-busy'
  | 'outside-hours'
  | 'no-agents-online'
  | 'caller-hung-up'
  | 'lead-busy'
  | 'lead-no-answer'
  | 'lead-failed'
  | 'server-restart'
  /** The dial guard refused the number when the agent took the call (the policy changed). */
  | 'dial-refused';
/** Where a call came from: a web lead (which may wait in the queue), or an agent or caller. */
export type CallSource = 'web' | 'retry' | 'check' | 'inbound' | 'outbound';
/** One call: a room in the voice engine, `sid` on the signalling wire. */
export const calls = pgTable(
  'calls',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    sid: text('sid').notNull(),
    type: text('type').notNull().default('lead'),
    direction: text('direction').$type<'inbound' | 'outbound'>().notNull().default('outbound'),
    status: text('status').$type<CallStatus>().notNull().default('queued'),
    /** Why it was not answered, or why it waits (`status` queued). */
    reason: text('reason').$type<CallReason>(),
    source: text('source').$type<CallSource>().notNull().default('web'),
    /** A web lead waiting in the queue for an agent to become free: since when. */
    waitingSince: timestamp('waiting_since', { withTimezone: true }),
    /** The last time the server saw the call alive (a crash loses at most the time after). */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    leadId: integer('lead_id').references(() => leads.id),
    profileId: integer('profile_id').references(() => profiles.id),
    callerNumberId: integer('caller_number_id').references(() => callerNumbers.id),
    /** The far end's number (the lead's, E.164). */
    phoneNumber: text('phone_number'),
    /** The agent who took the call. */
    userId: integer('user_id').references(() => users.id),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    seconds: integer('seconds').notNull().default(0),
    recordingUrl: text('recording_url'),
    /** The recording's file (served at `recording_url` to the account's users only). */
    recordingPath: text('recording_path'),
    disposition: text('disposition'),
    stageKey: text('stage_key'),
    /** The lead is on hold. */
    held: boolean('held').notNull().default(false),
    /**
     * When the agent's wrap-up after this call ends (set as it starts, moved earlier by Done):
     * once past, the call's wrap-up time is this less `ended_at` (the floor's handle time).
     */
    wrapUpEndedAt: timestamp('wrap_up_ended_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('calls_sid_unique').on(t.sid),
    index('calls_account_user_idx').on(t.accountId, t.userId, t.createdAt),
    index('calls_account_created_idx').on(t.accountId, t.createdAt),
    index('calls_lead_idx').on(t.leadId),
    // The live calls: a small partial index.
    index('calls_live_idx')
      .on(t.userId)
      .where(sql`${t.status} in ('ringing', 'in-progress')`),
    // The queue: web leads waiting for an agent, oldest first.
    index('calls_queue_idx')
      .on(t.accountId, t.waitingSince)
      .where(sql`${t.status} = 'queued'`),
    // The floor's calls whose figures still move with the clock (`floor/floor-counts.ts`): those
    // not ended, and those whose wrap-up has an end (the ones still in it are found by it).
    index('calls_unended_idx')
      .on(t.accountId, t.createdAt)
      .where(sql`${t.endedAt} is null`),
    index('calls_wrap_up_end_idx')
      .on(t.accountId, t.wrapUpEndedAt)
      .where(sql`${t.wrapUpEndedAt} is not null`),
  ],
);
/**
 * The calls the dial guard admitted (`calls/dial-guard.ts`), one row each, written in the
 * admission's transaction: what the calls-per-minute limits count, whichever way the call was
 * asked for (New Call, a device's call, Retry, Add Lead, a web lead's intake). `user_id` is the
 * agent who asked (null: a web lead, counted for the account only); `call_id` the call it placed
 * or joined (null until known, for intake), so an agent's call still being placed is found.
 */
export const dials = pgTable(
  'dials',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    callId: integer('call_id').references(() => calls.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('dials_account_idx').on(t.accountId, t.createdAt),
    index('dials_user_idx').on(t.userId, t.createdAt),
  ],
);
/** Outcome of ringing one user for one call. */
export type CallUserOutcome = 'ringing' | 'accepted' | 'rejected' | 'missed' | 'canceled';
/**
 * Why a user was rung for a call (the contract's `CallType`): `lead` for the call's primary
 * agent (lead, inbound and outbound calls alike), else transfer, conference, listen, whisper,
 * barge.
 */
export type CallUserType = CallType;
/** Which user was rung for which call. */
export const callUsers = pgTable(
  'call_users',
  {
    id: serial('id').primaryKey(),
    callId: integer('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    type: text('type').$type<CallUserType>().notNull().default('lead'),
    autoaccept: boolean('autoaccept').notNull().default(false),
    outcome: text('outcome').$type<CallUserOutcome>().notNull().default('ringing'),
    /** Who asked for this ring (a transfer's or a conference's requesting agent). */
    invitedByUserId: integer('invited_by_user_id').references(() => users.id),
    /** A team transfer: the team being offered the call, one agent at a time. */
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    /** When the user joined the call (answered). */
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    /** When the user left the call (hung up, transferred away, removed). */
    leftAt: timestamp('left_at', { withTimezone: true }),
    /**
     * A ring's reservation expires then (issue 38): any instance's sweeper moves a ring still
     * `ringing` past it on, whichever instance rang (its own timer is only the fast path).
     */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('call_users_call_idx').on(t.callId),
    index('call_users_user_idx').on(t.userId, t.createdAt),
    // Who is on a call now: answered and not left, a small set whatever the history holds.
    index('call_users_open_idx')
      .on(t.userId)
      .where(sql`${t.outcome} = 'accepted' and ${t.leftAt} is null`),
    // Who is being rung now: routing leaves them out, whatever the history holds.
    index('call_users_ringing_idx')
      .on(t.userId)
      .where(sql`${t.outcome} = 'ringing'`),
    // The sweeper's due rings.
    index('call_users_ring_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.outcome} = 'ringing'`),
    // The database is the lock (issue 38): one live reservation per agent. A reservation is a
    // ring with an expiry of a type that rings an agent's phone to take the call (a lead, a
    // transfer, a conference invitation); an agent's own New Call being placed (no expiry) and
    // a supervisor's listen/whisper/barge are not reservations.
    uniqueIndex('call_users_one_live_ring_idx')
      .on(t.userId)
      .where(
        sql`${t.outcome} = 'ringing' and ${t.expiresAt} is not null and ${t.type} in ('lead', 'transfer', 'conference')`,
      ),
  ],
);
/**
 * The predicate of `call_users_one_live_ring_idx` (a live reservation), as an `on conflict … where`
 * names it to back onto that index.
 */
export const LIVE_RESERVATION_PREDICATE =
  "outcome = 'ringing' and expires_at is not null and type in ('lead', 'transfer', 'conference')";
/** How a phone party of a call is doing. */
export type CallPhoneState = 'ringing' | 'answered' | 'unanswered' | 'left';
/**
 * A supervisor's action on an agent's call: who joined it (or changed role) as what, and when.
 * The agent is not told; the call's history shows it to people who may supervise.
 */
export const supervisionEvents = pgTable(
  'supervision_events',
  {
    id: serial('id').primaryKey(),
    callId: integer('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role').$type<'listen' | 'whisper' | 'barge'>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('supervision_events_call_idx').on(t.callId, t.createdAt)],
);
/**
 * A phone party of a call: the lead dialled when the agent answered, an inbound caller, a lead
 * added to the call. A call ends when its last phone party that answered leaves.
 */
export const callPhones = pgTable(
  'call_phones',
  {
    id: serial('id').primaryKey(),
    callId: integer('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    /** The telephony provider's id of the party. */
    participantId: text('participant_id').notNull(),
    direction: text('direction').$type<'inbound' | 'outbound'>().notNull(),
    /** The far end's number. */
    phoneNumber: text('phone_number').notNull(),
    /** The caller ID it was dialled from (outbound), or the number it called (inbound). */
    fromNumber: text('from_number'),
    state: text('state').$type<CallPhoneState>().notNull().default('ringing'),
    /** Why it did not answer: busy, no-answer, failed. */
    failure: text('failure'),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
    leftAt: timestamp('left_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('call_phones_call_idx').on(t.callId),
    uniqueIndex('call_phones_participant_unique').on(t.participantId),
  ],
);
/** A note an agent wrote after a call. */
export const notes = pgTable(
  'notes',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    callId: integer('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    content: text('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('notes_call_idx').on(t.callId)],
);
/** An SMS follow-up sent after a call. */
export const smsMessages = pgTable(
  'sms_messages',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    callId: integer('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    toNumber: text('to_number').notNull(),
    /** The account's number it was sent from. */
    fromNumber: text('from_number'),
    body: text('body').notNull(),
    /** `sent`: handed to the SMS provider; `failed`: the provider refused it (`error`). */
    status: text('status').$type<'sent' | 'failed'>().notNull().default('sent'),
    error: text('error'),
    /** The provider's id of the message. */
    providerId: text('provider_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('sms_messages_call_idx').on(t.callId),
    index('sms_messages_account_idx').on(t.accountId, t.createdAt),
  ],
);
