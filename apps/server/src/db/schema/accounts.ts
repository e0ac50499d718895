/**
 * Accounts and their people: users, teams, and the audit of what admins changed. (The schema's
 * index is `../schema.ts`.)
 */
import { sql } from 'drizzle-orm';
import {
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
import type { AccountSettings } from '@leadline/contracts';
import { createdAt } from './columns';

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
