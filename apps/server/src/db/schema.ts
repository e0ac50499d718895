/**
 * The domain model (Drizzle, PostgreSQL dialect: runs on PGlite and on a PostgreSQL server).
 * Every row that belongs to a customer carries `account_id`; queries are scoped by it.
 * Migrations are generated from this file (`npm run db:generate -w @leadline/server`).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { CallStatus } from '../calls/call-status';
import type { WeeklySchedule } from '../profiles/availability';

export type { CallStatus, WeeklySchedule };
import type { AccountSettings, CallType } from '@leadline/contracts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/**
 * An account's security policy (issue 36), read by the server only (never sent to the console,
 * unlike `settings`). Every field is optional; the server's defaults apply where one is absent
 * (`accounts/account-policy.ts` parses and defaults it). The administration screens will edit it.
 */
export interface AccountPolicy {
  /** Countries (ISO 3166-1 alpha-2) agents may call and text; default: the account's own. */
  call_countries?: string[];
  /** Outbound calls an agent may place per minute. */
  calls_per_minute_per_agent?: number;
  /** Outbound calls the whole account may place per minute. */
  calls_per_minute_per_account?: number;
  /** SMS an agent may send per hour. */
  sms_per_hour_per_agent?: number;
  /** SMS the whole account may send per hour. */
  sms_per_hour_per_account?: number;
  /** A session unused this long ends (minutes), beside its absolute lifetime. */
  session_idle_minutes?: number;
  /** Password login is refused for the account's users: single sign-on only. */
  sso_only?: boolean;
  /** Single sign-on: the Google Workspace domains (`hd` claim) allowed; none: any. */
  sso_hosted_domains?: string[];
  /** Single sign-on: the Microsoft Entra tenants (`tid` claim) allowed; none: any. */
  sso_tenant_ids?: string[];
  /** CRM ids a new user of the account gets unless the admin gives their own (issue 37). */
  crm_defaults?: UserIntegrations;
}

/** A customer of Leadline; `settings` holds its feature flags, `policy` its security policy. */
export const accounts = pgTable('accounts', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  /** The account's own country (ISO 3166-1 alpha-2): where its agents call by default. */
  countryCode: text('country_code').notNull().default('US'),
  /** The account's IANA time zone: its day for reports and the floor's figures. */
  timeZone: text('time_zone').notNull().default('UTC'),
  /** The floor's service level: the share of offered calls answered within this many seconds. */
  serviceLevelSeconds: integer('service_level_seconds').notNull().default(20),
  settings: jsonb('settings').$type<AccountSettings>().notNull().default({}),
  policy: jsonb('policy').$type<AccountPolicy>().notNull().default({}),
  /** Its users may sign in through the configured OpenID Connect provider. */
  ssoEnabled: boolean('sso_enabled').notNull().default(false),
  /** With single sign-on: only e-mail addresses of this domain (none: any). */
  ssoDomain: text('sso_domain'),
  /**
   * Made by the embedded demo seed (`db/seed.ts`). Set by the seed only, never by an admin or the
   * API: `LEADLINE_API_KEY` goes to an account of the operator's before a demo one.
   */
  demo: boolean('demo').notNull().default(false),
  createdAt: createdAt(),
});

/** User integration ids (CRM links on the lead card). */
export interface UserIntegrations {
  hubspot_id?: string | null;
  salesforce_domain?: string | null;
  activecampaign_domain?: string | null;
}

/** What a user is in their account (issue 37): an admin runs it; supervisors and agents call. */
export type UserRole = 'admin' | 'supervisor' | 'agent';

/** A user of an account: an admin, a supervisor or an agent. */
export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    fullName: text('full_name').notNull(),
    phoneNumber: text('phone_number'),
    profilePicture: text('profile_picture'),
    permissions: jsonb('permissions').$type<string[]>().notNull().default([]),
    role: text('role').$type<UserRole>().notNull().default('agent'),
    /**
     * The user may sign in and takes calls. An admin deactivates rather than deletes: the user's
     * sessions end, routing leaves them out, their history stays.
     */
    active: boolean('active').notNull().default(true),
    countryCode: text('country_code').notNull().default('US'),
    integrations: jsonb('integrations').$type<UserIntegrations>().notNull().default({}),
    /** The agent takes calls (availability switch). */
    isAvailable: boolean('is_available').notNull().default(true),
    /** The agent takes calls only in the app (not on a mobile). */
    isAppOnly: boolean('is_app_only').notNull().default(false),
    /** A device of the agent is registered with the signalling gateway. */
    isOnlineApp: boolean('is_online_app').notNull().default(false),
    isMobile: boolean('is_mobile').notNull().default(false),
    autoaccept: boolean('autoaccept').notNull().default(false),
    /**
     * The single sign-on identity the user is bound to (the ID token's `iss` and `sub`), set at
     * the first sign-in; another `sub` with the same e-mail is refused.
     */
    ssoIssuer: text('sso_issuer'),
    ssoSubject: text('sso_subject'),
    /**
     * One of the embedded demo seed's logins (`db/seed.ts`), whatever its e-mail has become. Set by
     * the seed only, never by an admin or the API: a production start refuses these users and
     * `remove-demo` removes them (`db/demo-removal.ts`), and nothing a tenant does makes another.
     */
    demo: boolean('demo').notNull().default(false),
    /** When the agent last took a call. */
    lastCallAt: timestamp('last_call_at', { withTimezone: true }),
    /**
     * Idle since: when the agent's last call ended, or when they came online. The router offers
     * a lead to the longest idle agent first (never set: idle the longest).
     */
    idleSince: timestamp('idle_since', { withTimezone: true }),
    /** After a call the agent wraps up (routing skips them) until Done or this time. */
    wrapUpUntil: timestamp('wrap_up_until', { withTimezone: true }),
    /** The call the agent wraps up (its `wrap_up_ended_at` moves to Done when pressed earlier). */
    wrapUpCallId: integer('wrap_up_call_id'),
    /**
     * When the agent last went online or offline, or chose Available or Away: since when they
     * are Offline, Away or Available on the floor (with their last wrap-up's end).
     */
    presenceChangedAt: timestamp('presence_changed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(sql`lower(${t.email})`),
    uniqueIndex('users_sso_identity_unique').on(t.ssoIssuer, t.ssoSubject),
    // The agent lists page by name; the id breaks ties so the index serves the order.
    index('users_account_name_idx').on(t.accountId, t.fullName, t.id),
  ],
);

/** A team of agents. */
export const teams = pgTable(
  'teams',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('teams_account_idx').on(t.accountId),
    uniqueIndex('teams_account_name_unique').on(t.accountId, sql`lower(${t.name})`),
  ],
);

/** Team membership. */
export const teamMembers = pgTable(
  'team_members',
  {
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.userId] }),
    index('team_members_user_idx').on(t.userId),
  ],
);

/** A call flow: how calls of a campaign behave. */
export const profiles = pgTable(
  'profiles',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    isDealWhispertext: boolean('is_deal_whispertext').notNull().default(false),
    autoAnswer: boolean('auto_answer').notNull().default(true),
    /** The team whose agents take its calls; none: every agent of the account. */
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    /** How long one agent is rung (ms); none: the server's `AGENT_RING_TIMEOUT_MS`. */
    ringTimeoutMs: integer('ring_timeout_ms'),
    /** Longest wrap-up after a call (seconds) before the agent takes calls again. */
    wrapUpSeconds: integer('wrap_up_seconds').notNull().default(60),
    /** Longest wait of a web lead in the queue (seconds) before it counts as busy/offline. */
    queueTimeoutSeconds: integer('queue_timeout_seconds').notNull().default(3600),
    /** When it takes calls; none: always. */
    availability: jsonb('availability').$type<WeeklySchedule>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('profiles_account_idx').on(t.accountId),
    uniqueIndex('profiles_account_name_unique').on(t.accountId, sql`lower(${t.name})`),
  ],
);

/** A tag (stage) of a profile. */
export const tags = pgTable(
  'tags',
  {
    id: serial('id').primaryKey(),
    profileId: integer('profile_id')
      .notNull()
      .references(() => profiles.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    name: text('name').notNull(),
    color: text('color').notNull(),
    /** Where the tag stands in its profile's list (the console shows them in this order). */
    position: integer('position').notNull().default(0),
  },
  (t) => [uniqueIndex('tags_profile_key_unique').on(t.profileId, t.key)],
);

/** A number the account calls from (caller id) and is called on. */
export const callerNumbers = pgTable(
  'caller_numbers',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    profileId: integer('profile_id').references(() => profiles.id),
    name: text('name').notNull(),
    phoneNumber: text('phone_number').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('caller_numbers_account_idx').on(t.accountId),
    uniqueIndex('caller_numbers_phone_unique').on(t.phoneNumber),
  ],
);

/**
 * Which account may use a number of the telephony provider's account (docs/deployment.md,
 * Twilio): the operator's record, written by `npm run admin -- assign-number`. With Twilio every
 * account calls through the operator's one Twilio account, so a tenant's admin makes caller
 * numbers only of the numbers assigned to it, and an inbound call to a number goes only to its
 * account. A number is assigned to one account at most.
 */
export const numberAssignments = pgTable(
  'number_assignments',
  {
    /** E.164. */
    phoneNumber: text('phone_number').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    createdAt: createdAt(),
  },
  (t) => [index('number_assignments_account_idx').on(t.accountId)],
);

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

/**
 * The columns of the floor's counts (issue 39), kept as calls change by the `calls_floor_counts`
 * trigger (migration 0016; `floor/floor-counts.ts` says what each holds). Times in microseconds.
 */
const floorCountColumns = {
  accountId: integer('account_id').notNull(),
  /** The 15-minute interval the calls arrived in (UTC-aligned, so every zone's too). */
  bucket: timestamp('bucket', { withTimezone: true }).notNull(),
  offered: integer('offered').notNull(),
  answered: integer('answered').notNull(),
  missed: integer('missed').notNull(),
  abandoned: integer('abandoned').notNull(),
  slMet: integer('sl_met').notNull(),
  settled: integer('settled').notNull(),
  answerMicros: bigint('answer_micros', { mode: 'number' }).notNull(),
  handled: integer('handled').notNull(),
  handleMicros: bigint('handle_micros', { mode: 'number' }).notNull(),
  talkSeconds: bigint('talk_seconds', { mode: 'number' }).notNull(),
};

/** The floor's counts per account and interval, folded from {@link floorCountDeltas}. */
export const floorCounts = pgTable('floor_counts', floorCountColumns, (t) => [
  primaryKey({ columns: [t.accountId, t.bucket] }),
]);

/**
 * What each change of a call did to its interval's counts, appended by the trigger (appends
 * never wait on each other, so calls' writes do not queue on a busy interval's row) and folded
 * into {@link floorCounts} every few seconds.
 */
export const floorCountDeltas = pgTable(
  'floor_count_deltas',
  { id: bigserial('id', { mode: 'number' }).primaryKey(), ...floorCountColumns },
  (t) => [index('floor_count_deltas_account_idx').on(t.accountId, t.bucket)],
);

/** Outcome of ringing one user for one call. */
export type CallUserOutcome = 'ringing' | 'accepted' | 'rejected' | 'missed' | 'canceled';

/**
 * Why a user was rung for a call (the contract's `CallType`): `lead` for the call's primary
 * agent (lead, inbound and outbound calls alike), else transfer, conference, listen, whisper,
 * barge.
 */
export type CallUserType = CallType;

/**
 * A single sign-on in progress: what the callback checks (state, nonce, PKCE verifier), keyed
 * by the hash of the browser's `leadline_sso` cookie. Used once (deleted when the callback
 * reads it); expires after ten minutes.
 */
export const ssoAttempts = pgTable('sso_attempts', {
  cookieHash: text('cookie_hash').primaryKey(),
  state: text('state').notNull(),
  nonce: text('nonce').notNull(),
  codeVerifier: text('code_verifier').notNull(),
  redirectUrl: text('redirect_url').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

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

/**
 * The embedded engine's media leader (issue 38): one row. The instance holding the leader's
 * advisory lock writes its URL and a new epoch (the fencing token) here; followers read it to
 * know where to relay, and check the epoch before acting for the leader.
 */
export const mediaLeader = pgTable('media_leader', {
  id: integer('id').primaryKey().default(1),
  instanceId: text('instance_id').notNull(),
  /** Where the other instances reach it (its base URL). */
  url: text('url').notNull(),
  /** Grows by one at each new leader: a fencing token. */
  epoch: integer('epoch').notNull(),
  /** The leader writes this every few seconds while it leads. */
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  electedAt: timestamp('elected_at', { withTimezone: true }).notNull().defaultNow(),
});

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

/** A login session; `id` is the SHA-256 of the cookie's secret, never the secret itself. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** When the session was last used (the idle timeout counts from here). */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * Sign-in failures by throttle key (issue 36): `ip-email:<address>|<e-mail>` (a hard limit) and
 * `email:<e-mail>` (a short growing delay only). In the database, so every instance counts the
 * same failures and a restart forgets none.
 */
export const loginThrottle = pgTable(
  'login_throttle',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
    /** No attempt is checked before this time (the hard limit, or the delay). */
    blockedUntil: timestamp('blocked_until', { withTimezone: true }),
  },
  (t) => [index('login_throttle_window_idx').on(t.windowStartedAt)],
);

/**
 * Hits of the anonymous routes' rate limits by key (route and address), shared by every
 * instance (the `@fastify/rate-limit` store); a key's count restarts at `reset_at`.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('rate_limit_hits_reset_idx').on(t.resetAt)],
);

/**
 * Signed provider webhooks already handled (issue 36), by `<provider>:<CallSid>:<status>:<sequence>`:
 * a callback the provider repeats changes nothing twice, on whichever instance it lands.
 */
export const webhookReceipts = pgTable(
  'webhook_receipts',
  {
    key: text('key').primaryKey(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('webhook_receipts_received_idx').on(t.receivedAt)],
);

/**
 * An `Idempotency-Key` a user sent with a write (`http/idempotency.ts`): the request's
 * fingerprint and, once it is done, the answer a repeat gets again. `status_code` null: the
 * request is still being processed (an external send in flight). Kept 24 hours.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of the method, route, path parameters and canonical JSON body. */
    fingerprint: text('fingerprint').notNull(),
    /** The answer's HTTP status; null while the request is in progress. */
    statusCode: integer('status_code'),
    /** The answer's JSON body; null while the request is in progress. */
    response: jsonb('response'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('idempotency_keys_user_key_unique').on(t.userId, t.key),
    // Expiry deletes by age.
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);

/** A lead-intake API key; only its SHA-256 is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    /** The key's first characters, shown to tell keys apart (null for keys made before). */
    prefix: text('prefix'),
    /** Leads posted with this key get this profile (none: the account's first profile). */
    profileId: integer('profile_id').references(() => profiles.id, { onDelete: 'set null' }),
    /**
     * The demo's published key (`demo-api-key`), registered by an embedded start. Set there only:
     * a production start refuses it and `remove-demo` removes it.
     */
    demo: boolean('demo').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('api_keys_hash_unique').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId),
  ],
);

/**
 * What an admin changed, when (issue 37): every admin write appends its entry in the same
 * transaction. `actor_user_id` null: the command line (`npm run admin`) or the demo seed.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id),
    actorUserId: integer('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Such as `user.create`, `team.delete`. */
    action: text('action').notNull(),
    /** Such as `user:12`. */
    target: text('target').notNull(),
    /** `{ field: [before, after] }`, secrets redacted. */
    changes: jsonb('changes').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index('audit_log_account_idx').on(t.accountId, t.createdAt, t.id)],
);

/**
 * Twilio mode, several equal instances (issue 38): each participant of a call's conference as
 * the provider knows it (`twilio/twilio-telephony.ts`), so that whichever instance a status
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

/**
 * Which instance holds a realtime connection of which user (issue 38): a user's device is online
 * while any instance holds one and that instance's heartbeat is fresh; an instance that dies
 * stops beating and its rows are swept.
 */
export const devicePresence = pgTable(
  'device_presence',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    since: timestamp('since', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.instanceId] }),
    index('device_presence_heartbeat_idx').on(t.heartbeatAt),
  ],
);
