/**
 * Cookie sessions stored in the database. The cookie holds a random secret; the table holds its
 * SHA-256, so a leaked table does not yield usable cookies. Every session has its CSRF token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { prepared } from '../db/prepared';
import { sessions, users } from '../db/schema';

/** The session cookie's name. */
export const SESSION_COOKIE = 'leadline_session';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const secret = () => randomBytes(32).toString('base64url');

/** The session data route handlers get. */
export interface SessionUser {
  sessionId: string;
  csrfToken: string;
  user: typeof users.$inferSelect;
}

/** Session storage over the database. */
export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Creates a session for a user; returns the cookie value. */
  async create(userId: number): Promise<{ cookie: string; expiresAt: Date }> {
    const cookie = secret();
    const expiresAt = new Date(this.now().getTime() + this.ttlMs);
    await this.db.insert(sessions).values({
      id: sha256(cookie),
      userId,
      csrfToken: secret(),
      expiresAt,
    });
    return { cookie, expiresAt };
  }

  /**
   * The live session and its user for a cookie value, or null. Every signed-in request asks
   * this, so it is a statement prepared once (see db/prepared.ts).
   */
  async find(cookie: string): Promise<SessionUser | null> {
    const id = sha256(cookie);
    const { db } = this;
    const statement = prepared(db, 'session-find', () =>
      db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(
            eq(sessions.id, sql.placeholder('id')),
            gt(sessions.expiresAt, sql`${sql.placeholder('now')}::timestamptz`),
          ),
        )
        .limit(1)
        .prepare('session_find'),
    );
    const [row] = await statement.execute({ id, now: this.now().toISOString() });
    return row ? { sessionId: id, csrfToken: row.session.csrfToken, user: row.user } : null;
  }

  /** Ends a session. */
  async destroy(sessionId: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, sessionId));
  }
}
