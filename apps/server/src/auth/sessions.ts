/**
 * Cookie sessions stored in the database. The cookie holds a random secret; the table holds its
 * SHA-256, so a leaked table does not yield usable cookies. Every session has its CSRF token.
 *
 * A session ends at the first of (issue 36 item 3):
 * - its absolute lifetime (`SESSION_TTL_HOURS`, from the login);
 * - its idle timeout: unused for the account's `session_idle_minutes` (default
 *   `SESSION_IDLE_MINUTES`). A request it answers successfully counts as use, and so does a
 *   socket it let in that is still connected (the console open: `socket-access.ts`). The use is
 *   written at most once every {@link SESSION_TOUCH_EVERY_MS} per session (`last_seen_at`), so
 *   reading the API does not write a row per request, and a refused request writes none;
 * - its user deactivated by an admin (issue 37): their sessions are deleted then, and a session
 *   of an inactive user never authenticates anyway.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, lte, ne, sql } from 'drizzle-orm';
import { sessionIdleMsOf } from '../accounts/account-policy';
import type { Db, DbOrTx } from '../db/database';
import { prepared } from '../db/prepared';
import { accounts, sessions, users } from '../db/schema';
import { DEFAULT_SESSION_IDLE_MINUTES } from '../config';

/** The session cookie's name. */
export const SESSION_COOKIE = 'leadline_session';

/** A session's use is written at most this often (and its idle timeout is this coarse). */
export const SESSION_TOUCH_EVERY_MS = 60_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const secret = () => randomBytes(32).toString('base64url');

/** The session data route handlers get. */
export interface SessionUser {
  sessionId: string;
  csrfToken: string;
  user: typeof users.$inferSelect;
  /** When the session's use was last written. */
  lastSeenAt: Date;
}

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  /** The idle timeout of accounts whose policy sets none (default 60 minutes). */
  idleMs?: number;
  now?: () => Date;
}

/** A live session of {@link liveSessions}. */
export interface LiveSession {
  id: string;
  userId: number;
  lastSeenAt: Date;
}

/**
 * The sessions of `userIds` that have not ended at `now`: neither past their absolute lifetime
 * nor idle longer than their account allows (`defaultIdleMs` where its policy sets nothing), of
 * users still active.
 */
export async function liveSessions(
  db: Db,
  userIds: number[],
  now: Date,
  defaultIdleMs = DEFAULT_SESSION_IDLE_MINUTES * 60_000,
): Promise<LiveSession[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .select({
      id: sessions.id,
      userId: sessions.userId,
      lastSeenAt: sessions.lastSeenAt,
      policy: accounts.policy,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(
      and(inArray(sessions.userId, userIds), gt(sessions.expiresAt, now), eq(users.active, true)),
    );
  return rows
    .filter((row) => !idledOut(row.lastSeenAt, row.policy, defaultIdleMs, now))
    .map(({ id, userId, lastSeenAt }) => ({ id, userId, lastSeenAt }));
}

/** Whether a session last used at `lastSeenAt` is idle past its account's timeout at `now`. */
function idledOut(lastSeenAt: Date, policy: unknown, defaultIdleMs: number, now: Date): boolean {
  return now.getTime() - lastSeenAt.getTime() >= sessionIdleMsOf(policy, defaultIdleMs);
}

/**
 * Writes that the sessions `ids` were used at `now`, each only when its last write is at least
 * {@link SESSION_TOUCH_EVERY_MS} old (so instances touching the same session write it once).
 */
export async function touchSessions(db: Db, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(sessions)
    .set({ lastSeenAt: now })
    .where(
      and(
        inArray(sessions.id, ids),
        lte(sessions.lastSeenAt, new Date(now.getTime() - SESSION_TOUCH_EVERY_MS)),
      ),
    );
}

/** Session storage over the database. */
export class SessionStore {
  readonly #idleMs: number;
  readonly #now: () => Date;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    options: SessionStoreOptions = {},
  ) {
    this.#idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MINUTES * 60_000;
    this.#now = options.now ?? (() => new Date());
  }

  /** The idle timeout of accounts whose policy sets none. */
  get defaultIdleMs(): number {
    return this.#idleMs;
  }

  /** Creates a session for a user; returns the cookie value. */
  async create(userId: number): Promise<{ cookie: string; expiresAt: Date }> {
    const cookie = secret();
    const now = this.#now();
    const expiresAt = new Date(now.getTime() + this.ttlMs);
    await this.db.insert(sessions).values({
      id: sha256(cookie),
      userId,
      csrfToken: secret(),
      expiresAt,
      lastSeenAt: now,
    });
    return { cookie, expiresAt };
  }

  /**
   * The live session and its user for a cookie value, or null (none, expired, idle too long, or
   * its user deactivated: the request is refused, and a refusal writes nothing). Every signed-in
   * request asks this, so it is a statement prepared once (see db/prepared.ts).
   */
  async find(cookie: string): Promise<SessionUser | null> {
    const id = sha256(cookie);
    const { db } = this;
    const statement = prepared(db, 'session-find', () =>
      db
        .select({ session: sessions, user: users, policy: accounts.policy })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .innerJoin(accounts, eq(accounts.id, users.accountId))
        .where(
          and(
            eq(sessions.id, sql.placeholder('id')),
            gt(sessions.expiresAt, sql`${sql.placeholder('now')}::timestamptz`),
            eq(users.active, true),
          ),
        )
        .limit(1)
        .prepare('session_find'),
    );
    const now = this.#now();
    const [row] = await statement.execute({ id, now: now.toISOString() });
    if (!row || idledOut(row.session.lastSeenAt, row.policy, this.#idleMs, now)) return null;
    return {
      sessionId: id,
      csrfToken: row.session.csrfToken,
      user: row.user,
      lastSeenAt: row.session.lastSeenAt,
    };
  }

  /**
   * Writes that `session` was used now, when its last write is {@link SESSION_TOUCH_EVERY_MS}
   * old or more (otherwise nothing, not even a query).
   */
  async touch(session: SessionUser): Promise<void> {
    const now = this.#now();
    if (now.getTime() - session.lastSeenAt.getTime() < SESSION_TOUCH_EVERY_MS) return;
    await touchSessions(this.db, [session.sessionId], now);
  }

  /** The live sessions of `userIds` (see {@link liveSessions}). */
  live(userIds: number[]): Promise<LiveSession[]> {
    return liveSessions(this.db, userIds, this.#now(), this.#idleMs);
  }

  /** Ends a session. */
  async destroy(sessionId: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, sessionId));
  }

  /** Ends every session of a user ('Log out everywhere'); resolves with the ids that ended. */
  destroyAllOf(userId: number): Promise<string[]> {
    return endSessionsOf(this.db, userId);
  }
}

/**
 * Ends the sessions of a user (in `db`, or a transaction of it), except `keep` if given;
 * resolves with the ids that ended (tell `SocketAccess.sessionsEnded` once they are committed).
 */
export async function endSessionsOf(
  db: DbOrTx,
  userId: number,
  keep?: string | null,
): Promise<string[]> {
  const ended = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), keep ? ne(sessions.id, keep) : undefined))
    .returning({ id: sessions.id });
  return ended.map((row) => row.id);
}
