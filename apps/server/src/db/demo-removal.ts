/**
 * The demo seed's logins and API key in a database: found (a production start refuses them) and
 * removed (`npm run remove-demo`, for a database an embedded start once seeded). They are the
 * rows the seed marked (`demo`), whatever their e-mail is now: a user an admin created or renamed
 * to a demo address is not one of them, and a demo user an admin renamed still is.
 *
 * Removal takes the demo's users (their sessions, team memberships and idempotency keys go with
 * them) and the demo API key. What they did stays as history without them: calls they took keep
 * their row with no agent; their own traces in other rows (being rung for a call, supervision
 * events, notes and SMS they wrote) are deleted, since those rows cannot name nobody. Accounts,
 * profiles, caller numbers and leads are the operator's to keep or delete.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from './database';
import {
  apiKeys,
  callUsers,
  calls,
  notes,
  sessions,
  smsMessages,
  supervisionEvents,
  users,
} from './schema';

/** What of the demo seed a database holds. */
export interface DemoLeftovers {
  /** The demo users' e-mail addresses, as stored. */
  users: string[];
  /** Whether the demo API key is registered. */
  apiKey: boolean;
}

/** What a removal took away. */
export interface DemoRemoval extends DemoLeftovers {
  /** The login sessions of those users that ended with them. */
  sessions: number;
}

const isDemoUser = () => eq(users.demo, true);
const isDemoKey = () => eq(apiKeys.demo, true);

/** The demo seed's users and key in `db`, if any. */
export async function findDemoLeftovers(db: Db): Promise<DemoLeftovers> {
  const demoUsers = await db
    .select({ email: users.email })
    .from(users)
    .where(isDemoUser())
    .orderBy(users.id);
  const [key] = await db.select({ id: apiKeys.id }).from(apiKeys).where(isDemoKey()).limit(1);
  return { users: demoUsers.map((row) => row.email), apiKey: key !== undefined };
}

/** Removes the demo seed's users and key from `db`, in one transaction; says what went. */
export async function removeDemoLogins(db: Db): Promise<DemoRemoval> {
  return db.transaction(async (tx) => {
    const demoUsers = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(isDemoUser())
      .orderBy(users.id);
    const ids = demoUsers.map((row) => row.id);
    let endedSessions = 0;
    if (ids.length > 0) {
      endedSessions = (
        await tx.select({ id: sessions.id }).from(sessions).where(inArray(sessions.userId, ids))
      ).length;
      await tx.delete(notes).where(inArray(notes.userId, ids));
      await tx.delete(smsMessages).where(inArray(smsMessages.userId, ids));
      await tx.delete(supervisionEvents).where(inArray(supervisionEvents.userId, ids));
      await tx
        .update(callUsers)
        .set({ invitedByUserId: null })
        .where(inArray(callUsers.invitedByUserId, ids));
      await tx.delete(callUsers).where(inArray(callUsers.userId, ids));
      await tx.update(calls).set({ userId: null }).where(inArray(calls.userId, ids));
      // Sessions, team memberships and idempotency keys go with the user (on delete cascade).
      await tx.delete(users).where(inArray(users.id, ids));
    }
    const removedKeys = await tx.delete(apiKeys).where(isDemoKey()).returning({ id: apiKeys.id });
    return {
      users: demoUsers.map((row) => row.email),
      apiKey: removedKeys.length > 0,
      sessions: endedSessions,
    };
  });
}
