/** Database access for users. */
import { and, asc, eq, inArray, isNull, notExists, or, sql } from 'drizzle-orm';
import { formatPhone, type User } from '@leadline/contracts';
import type { Db } from '../db/database';
import { accounts, callUsers, calls, users } from '../db/schema';
import { LIVE_CALL_STATUSES } from './agents-repo';

/** A user row. */
export type UserRow = typeof users.$inferSelect;

/** The user with this e-mail (case-insensitive), or null. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const rows = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .limit(1);
  return rows[0] ?? null;
}

/** A user by id, or null (internal use: not scoped to an account). */
export async function findUserById(db: Db, userId: number): Promise<UserRow | null> {
  const rows = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return rows[0] ?? null;
}

/** A user of the account by id, or null. */
export async function findAccountUser(
  db: Db,
  accountId: number,
  userId: number,
): Promise<UserRow | null> {
  const rows = await db
    .select()
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, userId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The user as GET /api/v1/user returns it, with the account's settings. */
export async function toUserResource(db: Db, user: UserRow, csrfToken: string): Promise<User> {
  const [account] = await db
    .select({ settings: accounts.settings })
    .from(accounts)
    .where(eq(accounts.id, user.accountId));
  return {
    id: user.id,
    account_id: user.accountId,
    full_name: user.fullName,
    email: user.email,
    phone_number_formatted: user.phoneNumber ? formatPhone(user.phoneNumber) : null,
    profile_picture: user.profilePicture,
    permissions: user.permissions,
    country_code: user.countryCode,
    integrations: {
      hubspot_id: user.integrations.hubspot_id ?? null,
      salesforce_domain: user.integrations.salesforce_domain ?? null,
      activecampaign_domain: user.integrations.activecampaign_domain ?? null,
    },
    settings: account?.settings ?? {},
    autoaccept: user.autoaccept,
    csrf_token: csrfToken,
  };
}

/** Records whether a device of the user is registered with the gateway. */
export async function setOnlineApp(db: Db, userId: number, online: boolean): Promise<void> {
  await db.update(users).set({ isOnlineApp: online }).where(eq(users.id, userId));
}

/** Turns the user's Auto Accept on or off. */
export async function setAutoaccept(db: Db, userId: number, autoaccept: boolean): Promise<void> {
  await db.update(users).set({ autoaccept }).where(eq(users.id, userId));
}

/** Marks every user offline (at start: no device is connected yet). */
export async function markAllOffline(db: Db): Promise<void> {
  await db.update(users).set({ isOnlineApp: false }).where(eq(users.isOnlineApp, true));
}

/** Records that the user just took a call (the router rings the longest idle agent first). */
export async function touchLastCall(db: Db, userId: number, at: Date): Promise<void> {
  await db.update(users).set({ lastCallAt: at }).where(eq(users.id, userId));
}

/**
 * Agents of the account who can take a lead now: available, online in the app, neither on a
 * call nor being rung; the longest idle first.
 */
export async function findAvailableAgents(db: Db, accountId: number): Promise<UserRow[]> {
  const busy = db
    .select({ one: sql`1` })
    .from(callUsers)
    .innerJoin(calls, eq(calls.id, callUsers.callId))
    .where(
      and(
        eq(callUsers.userId, users.id),
        inArray(calls.status, LIVE_CALL_STATUSES),
        or(
          eq(callUsers.outcome, 'ringing'),
          and(eq(callUsers.outcome, 'accepted'), isNull(callUsers.leftAt)),
        ),
      ),
    );
  return db
    .select()
    .from(users)
    .where(
      and(
        eq(users.accountId, accountId),
        eq(users.isAvailable, true),
        eq(users.isOnlineApp, true),
        notExists(busy),
      ),
    )
    .orderBy(sql`${users.lastCallAt} asc nulls first`, asc(users.id));
}

/** Whether some agent of the account is available and online in the app (maybe on a call). */
export async function hasOnlineAgents(db: Db, accountId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(
      and(eq(users.accountId, accountId), eq(users.isAvailable, true), eq(users.isOnlineApp, true)),
    )
    .limit(1);
  return row !== undefined;
}
