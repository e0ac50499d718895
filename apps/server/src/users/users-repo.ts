/** Database access for users. */
import { and, eq, gt, ne, sql } from 'drizzle-orm';
import { formatPhone, type PresenceStatus, type User } from '@leadline/contracts';
import { queryRows, type Db } from '../db/database';
import { prepared } from '../db/prepared';
import { routingChanged } from '../db/routing-changes';
import { accounts, calls, devicePresence, users } from '../db/schema';
import { onCallOf, presenceStatus } from './agents-repo';

/** A user row. */
export type UserRow = typeof users.$inferSelect;

/** The columns a user's presence is worked out from (`presenceOf`, the user resource). */
const PRESENCE_COLUMNS = {
  accountId: users.accountId,
  isAvailable: users.isAvailable,
  isOnlineApp: users.isOnlineApp,
  isMobile: users.isMobile,
  wrapUpUntil: users.wrapUpUntil,
  onCallId: onCallOf(sql.raw('"users"."id"')),
};

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
export async function toUserResource(
  db: Db,
  user: UserRow,
  csrfToken: string,
  now: Date,
): Promise<User> {
  // The account's settings and the user's presence in one prepared statement: every console
  // load and reconnect asks for them.
  const statement = prepared(db, 'user-resource', () =>
    db
      .select({ settings: accounts.settings, ...PRESENCE_COLUMNS })
      .from(users)
      .innerJoin(accounts, eq(accounts.id, users.accountId))
      .where(eq(users.id, sql.placeholder('userId')))
      .prepare('user_resource'),
  );
  const [row] = await statement.execute({ userId: user.id });
  const presence = row ? toPresence(row, now) : null;
  return {
    id: user.id,
    account_id: user.accountId,
    full_name: user.fullName,
    email: user.email,
    phone_number_formatted: user.phoneNumber ? formatPhone(user.phoneNumber) : null,
    profile_picture: user.profilePicture,
    permissions: user.permissions,
    role: user.role,
    country_code: user.countryCode,
    integrations: {
      hubspot_id: user.integrations.hubspot_id ?? null,
      salesforce_domain: user.integrations.salesforce_domain ?? null,
      activecampaign_domain: user.integrations.activecampaign_domain ?? null,
    },
    settings: row?.settings ?? {},
    autoaccept: user.autoaccept,
    is_available: presence?.isAvailable ?? user.isAvailable,
    status: presence?.status ?? 'offline',
    csrf_token: csrfToken,
  };
}

/** Records whether a device of the user is registered with the gateway. */
export async function setOnlineApp(db: Db, userId: number, online: boolean): Promise<void> {
  await db.update(users).set({ isOnlineApp: online }).where(eq(users.id, userId));
  routingChanged();
}

/** Turns the user's Auto Accept on or off. */
export async function setAutoaccept(db: Db, userId: number, autoaccept: boolean): Promise<void> {
  await db.update(users).set({ autoaccept }).where(eq(users.id, userId));
  routingChanged();
}

/**
 * Stores a new hash of the user's password (made at another cost than `previous`), unless the
 * stored one changed meanwhile: a login that rehashed concurrently, or a password just changed.
 */
export async function replacePasswordHash(
  db: Db,
  userId: number,
  previous: string,
  next: string,
): Promise<void> {
  await db
    .update(users)
    .set({ passwordHash: next })
    .where(and(eq(users.id, userId), eq(users.passwordHash, previous)));
}

/**
 * Marks every user offline (at start with the embedded engine: no device is connected yet) and
 * forgets which instance held whose realtime connection (`device_presence`, Twilio mode's: a
 * database that ran Twilio before holds none that counts now, and a row left there would keep
 * `setDeviceOnline` from taking a user offline).
 */
export async function markAllOffline(db: Db): Promise<void> {
  await db.delete(devicePresence);
  await db.update(users).set({ isOnlineApp: false }).where(eq(users.isOnlineApp, true));
  routingChanged();
}

/** Records that the user just took a call (the router rings the longest idle agent first). */
export async function touchLastCall(db: Db, userId: number, at: Date): Promise<void> {
  await db.update(users).set({ lastCallAt: at }).where(eq(users.id, userId));
}

/**
 * Sets whether the agent takes calls (Available) or not (Away); a change is timed
 * (`presence_changed_at`, the floor's time in status).
 */
export async function setAvailable(
  db: Db,
  userId: number,
  available: boolean,
  at: Date = new Date(),
): Promise<void> {
  await db
    .update(users)
    .set({ isAvailable: available, presenceChangedAt: at })
    .where(and(eq(users.id, userId), ne(users.isAvailable, available)));
  routingChanged();
}

/**
 * The agent wraps up after a call until `until` (or Done); they are idle from `at`. With
 * `callId`, the call the agent took: its wrap-up ends at `until` unless Done comes first
 * (`calls.wrap_up_ended_at`, the floor's handle time).
 */
export async function startWrapUp(
  db: Db,
  userId: number,
  until: Date,
  at: Date,
  callId: number | null = null,
): Promise<void> {
  await db
    .update(users)
    .set({ wrapUpUntil: until, idleSince: at, wrapUpCallId: callId })
    .where(eq(users.id, userId));
  if (callId !== null) {
    await db
      .update(calls)
      .set({ wrapUpEndedAt: until })
      .where(and(eq(calls.id, callId), eq(calls.userId, userId)));
  }
  routingChanged();
}

/**
 * Ends the agent's wrap-up at `at`; resolves with whether they were wrapping up. The call they
 * wrapped up ends its wrap-up then if that is before its deadline (Done pressed early).
 */
export async function endWrapUp(db: Db, userId: number, at: Date = new Date()): Promise<boolean> {
  const atIso = at.toISOString();
  const [row] = await queryRows<{ ended: number }>(
    db,
    sql`with old as (
          select id, wrap_up_call_id from ${users}
          where id = ${userId} and wrap_up_until is not null for update),
        ended as (
          update ${users} u set wrap_up_until = null, wrap_up_call_id = null,
            presence_changed_at = ${atIso}::timestamptz
          from old where u.id = old.id
          returning old.wrap_up_call_id as call_id),
        moved as (
          update ${calls} c set wrap_up_ended_at = ${atIso}::timestamptz
          from ended
          where c.id = ended.call_id and c.user_id = ${userId}
            and c.wrap_up_ended_at > ${atIso}::timestamptz)
        select count(*)::int as ended from ended`,
  );
  routingChanged();
  return (row?.ended ?? 0) > 0;
}

/**
 * Records whether a device of the user is registered; a user coming online is idle from `at`.
 * Resolves with whether anything changed.
 *
 * Never offline while an instance holds a realtime connection of the user (`device_presence`,
 * Twilio mode): the instance that saw the change has already written the answer under the
 * user's lock (`device-presence-repo.ts` `settleDevice`), and this late copy of an older
 * answer (the flows act on the event after that) must not undo a newer one of another
 * instance. The embedded engine writes no such rows.
 */
export async function setDeviceOnline(
  db: Db,
  userId: number,
  online: boolean,
  at: Date,
): Promise<boolean> {
  const rows = await db
    .update(users)
    .set(
      online
        ? { isOnlineApp: true, idleSince: at, presenceChangedAt: at }
        : { isOnlineApp: false, presenceChangedAt: at },
    )
    .where(
      and(
        eq(users.id, userId),
        eq(users.isOnlineApp, !online),
        online
          ? undefined
          : sql`not exists (select 1 from ${devicePresence} where ${devicePresence.userId} = ${userId})`,
      ),
    )
    .returning({ id: users.id });
  routingChanged();
  return rows.length > 0;
}

/** Users whose wrap-up has not ended yet (their timers are set again at start). */
export async function pendingWrapUps(
  db: Db,
  now: Date,
): Promise<Array<{ id: number; wrapUpUntil: Date }>> {
  const rows = await db
    .select({ id: users.id, wrapUpUntil: users.wrapUpUntil })
    .from(users)
    .where(gt(users.wrapUpUntil, now));
  return rows.map((r) => ({ id: r.id, wrapUpUntil: r.wrapUpUntil! }));
}

/** What `presenceOf` reads of a user. */
export interface Presence {
  accountId: number;
  status: PresenceStatus;
  isAvailable: boolean;
  wrapUpUntil: Date | null;
}

/** Where the user is now (see `PresenceStatus`), or null for an unknown user. */
export async function presenceOf(db: Db, userId: number, now: Date): Promise<Presence | null> {
  const [row] = await db.select(PRESENCE_COLUMNS).from(users).where(eq(users.id, userId));
  return row ? toPresence(row, now) : null;
}

/** A presence row (`PRESENCE_COLUMNS`) as of `now`: a wrap-up already over counts as none. */
function toPresence(
  row: {
    accountId: number;
    isAvailable: boolean;
    isOnlineApp: boolean;
    isMobile: boolean;
    wrapUpUntil: Date | null;
    onCallId: number | null;
  },
  now: Date,
): Presence {
  const wrapUpUntil = row.wrapUpUntil && row.wrapUpUntil > now ? row.wrapUpUntil : null;
  return {
    accountId: row.accountId,
    isAvailable: row.isAvailable,
    wrapUpUntil,
    status: presenceStatus({ ...row, wrapUpUntil }),
  };
}
