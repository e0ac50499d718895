/**
 * Twilio mode: each call's parties, conferences and waiting callers. (The schema's index is
 * `../schema.ts`.)
 */
import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/**
 * Twilio mode, several equal instances (issue 38): each participant of a call's conference as
 * the provider knows it (`twilio/twilio-legs.ts`), so that whichever instance a status
 * callback reaches moves the party on by one compare-and-set (`state`), and a fact told twice,
 * or to two instances, is acted on once.
 */
export const twilioParties = pgTable(
  'twilio_parties',
  {
    /** The Leadline call sid: the conference's FriendlyName. */
    callSid: text('call_sid').notNull(),
    /** `agent-<identity>`, `phone-<id>`, `caller-<id>`. */
    label: text('label').notNull(),
    kind: text('kind').$type<'agent' | 'phone'>().notNull(),
    /** The identity (agent) or the participant id (phone: the label). */
    partyId: text('party_id').notNull(),
    role: text('role').notNull(),
    state: text('state').$type<'dialling' | 'ringing' | 'answered' | 'gone'>().notNull(),
    /** Taken out by a command: its end is not reported. */
    removed: boolean('removed').notNull().default(false),
    /** Twilio's `CA…` sid of the leg, once known. */
    legSid: text('leg_sid'),
    /**
     * What a callback moved it by (`ringing`, `answer`, `end`) until the flows have reacted: an
     * instance that dies before they did leaves it here, and another instance's sweeper tells its
     * own flows once `pending_until` has passed.
     */
    pendingInput: text('pending_input').$type<'ringing' | 'answer' | 'end'>(),
    /** Twilio's status with the pending input (`busy`, `failed`…). */
    pendingStatus: text('pending_status'),
    /** Whether the party was still ringing when the pending input moved it. */
    pendingWasRinging: boolean('pending_was_ringing'),
    pendingUntil: timestamp('pending_until', { withTimezone: true }),
    /**
     * The pending move came after a command took the party out (its end is that command's doing):
     * whoever reacts tells the flows nothing. Kept with the move, since a removal that comes after
     * it (the flows' own reaction, cut short by the instance's death) must not silence it.
     */
    pendingSilent: boolean('pending_silent'),
    /**
     * Taken out by a command whose REST remove is not known to have reached Twilio until then:
     * once passed (its instance died), any instance's sweep removes the participant again.
     */
    removeUntil: timestamp('remove_until', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.callSid, t.label] }),
    index('twilio_parties_pending_idx')
      .on(t.pendingUntil)
      .where(sql`${t.pendingInput} is not null`),
    index('twilio_parties_remove_idx')
      .on(t.removeUntil)
      .where(sql`${t.removeUntil} is not null`),
  ],
);
/** Twilio mode: each call's conference (`CF…` sid once known) and whether its lead is on hold. */
export const twilioConferences = pgTable('twilio_conferences', {
  callSid: text('call_sid').primaryKey(),
  conferenceSid: text('conference_sid'),
  held: boolean('held').notNull().default(false),
  createdAt: createdAt(),
});
/**
 * Twilio mode: an inbound call the voice webhook received, waiting to be joined to a Leadline
 * call (`addCaller`), whichever instance places it.
 */
export const twilioWaitingCallers = pgTable(
  'twilio_waiting_callers',
  {
    twilioCallSid: text('twilio_call_sid').primaryKey(),
    fromNumber: text('from_number').notNull(),
    toNumber: text('to_number').notNull(),
    /** `webhook`: the voice webhook is still answering; `waiting`: answered with a wait. */
    state: text('state').$type<'webhook' | 'waiting'>().notNull(),
    /** The call and label `addCaller` joined it to. */
    claimCallSid: text('claim_call_sid'),
    claimLabel: text('claim_label'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('twilio_waiting_callers_from_to_idx').on(t.fromNumber, t.toNumber, t.receivedAt)],
);
