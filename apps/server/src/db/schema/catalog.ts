/**
 * What an account sets up to call: profiles (call flows) and their tags, the numbers it calls
 * from and who holds them, its lead-intake keys. (The schema's index is `../schema.ts`.)
 */
import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { WeeklySchedule } from '../../profiles/availability';
import { createdAt } from './columns';
import { accounts, teams } from './accounts';

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
