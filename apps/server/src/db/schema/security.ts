/**
 * Sign-in and the guards of the HTTP boundary: sessions, single sign-on in progress, the login
 * throttle, rate-limit hits, webhooks already handled, idempotency keys. (The schema's index is
 * `../schema.ts`.)
 */
import {
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { users } from './accounts';

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
