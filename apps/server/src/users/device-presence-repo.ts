/**
 * Database access for device presence across instances (`device_presence`, issue 38): which
 * instance holds a realtime connection of which user, with that instance's heartbeat. A user's
 * device is online while they are active and any of their rows is fresh; `users.is_online_app`
 * is that answer as routing reads it, written only under the lock of the user's row
 * (`settleDevice`), so two instances deciding about one user at once take turns and exactly one
 * of them sees each change. See `device-presence.ts` for who calls what when.
 */
import { and, eq, gt, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { devicePresence, users } from '../db/schema';

/**
 * The holder of the rows hosted Pusher's presence webhooks write. Pusher tells presence for the
 * whole app whichever instance its webhook reaches, and no instance beats for it: these rows
 * never go stale and the sweeper never deletes them (Pusher's `member_removed`, retried by
 * Pusher until answered, takes them away).
 */
export const PUSHER_PRESENCE_HOLDER = 'pusher';

/** A row that counts: Pusher's, or one whose instance beat after `freshAfter`. */
const fresh = (freshAfter: Date) =>
  or(
    eq(devicePresence.instanceId, PUSHER_PRESENCE_HOLDER),
    gt(devicePresence.heartbeatAt, freshAfter),
  )!;

/** What a settle does to the holder's row before the user's answer is worked out again. */
export type DeviceChange =
  /** The holder has a connection of the user: its row is there, beating now. */
  | { kind: 'hold'; holder: string }
  /** The holder has none any more: its row goes. */
  | { kind: 'release'; holder: string }
  /** Nothing: the answer is only worked out again (a sweep, a heartbeat's repair). */
  | { kind: 'recheck' };

/** The user's answer after a settle, and whether this settle changed `users.is_online_app`. */
export interface DeviceSettled {
  online: boolean;
  changed: boolean;
}

/**
 * Applies `change` and works the user's answer out again, in one transaction holding the lock of
 * the user's row: the rows' change, the answer (active, and a row fresh after `freshAfter`) and
 * `users.is_online_app` (set to the answer; `idle_since` is `now` when they come online) are
 * one step for every instance. Null for an unknown user.
 */
export async function settleDevice(
  db: Db,
  userId: number,
  change: DeviceChange,
  now: Date,
  freshAfter: Date,
): Promise<DeviceSettled | null> {
  const settled = await db.transaction(async (tx) => {
    const [user] = await tx
      .select({ active: users.active, online: users.isOnlineApp })
      .from(users)
      .where(eq(users.id, userId))
      .for('no key update');
    if (!user) return null;
    if (change.kind === 'hold') {
      await tx
        .insert(devicePresence)
        .values({ userId, instanceId: change.holder, since: now, heartbeatAt: now })
        .onConflictDoUpdate({
          target: [devicePresence.userId, devicePresence.instanceId],
          set: { heartbeatAt: now },
        });
    } else if (change.kind === 'release') {
      await tx
        .delete(devicePresence)
        .where(
          and(eq(devicePresence.userId, userId), eq(devicePresence.instanceId, change.holder)),
        );
    }
    const online = user.active && (await hasFreshDevice(tx, userId, freshAfter));
    if (online === user.online) return { online, changed: false };
    await tx
      .update(users)
      .set(online ? { isOnlineApp: true, idleSince: now } : { isOnlineApp: false })
      .where(eq(users.id, userId));
    return { online, changed: true };
  });
  if (settled?.changed) routingChanged();
  return settled;
}

/** Whether a row of the user is fresh after `freshAfter` (active or not). */
async function hasFreshDevice(db: DbOrTx, userId: number, freshAfter: Date): Promise<boolean> {
  const [row] = await db
    .select({ one: sql<number>`1` })
    .from(devicePresence)
    .where(and(eq(devicePresence.userId, userId), fresh(freshAfter)))
    .limit(1);
  return row !== undefined;
}

/** Whether the user is online: active, with a row fresh after `freshAfter`. */
export async function isDeviceOnline(db: Db, userId: number, freshAfter: Date): Promise<boolean> {
  const [row] = await db
    .select({ one: sql<number>`1` })
    .from(devicePresence)
    .innerJoin(users, eq(users.id, devicePresence.userId))
    .where(and(eq(devicePresence.userId, userId), eq(users.active, true), fresh(freshAfter)))
    .limit(1);
  return row !== undefined;
}

/** The users online: active, with a row fresh after `freshAfter`. */
export async function usersWithFreshDevice(db: Db, freshAfter: Date): Promise<number[]> {
  const rows = await db
    .selectDistinct({ userId: devicePresence.userId })
    .from(devicePresence)
    .innerJoin(users, eq(users.id, devicePresence.userId))
    .where(and(eq(users.active, true), fresh(freshAfter)));
  return rows.map((row) => row.userId);
}

/**
 * The holder's heartbeat: its rows beat at `now`. Resolves with each user it holds a row of and
 * whether `users.is_online_app` says online (a repair is due where it does not).
 */
export async function beatDevices(
  db: Db,
  holder: string,
  now: Date,
): Promise<Array<{ userId: number; online: boolean }>> {
  const beat = db
    .$with('beat')
    .as(
      db
        .update(devicePresence)
        .set({ heartbeatAt: now })
        .where(eq(devicePresence.instanceId, holder))
        .returning({ userId: devicePresence.userId }),
    );
  return db
    .with(beat)
    .select({ userId: beat.userId, online: users.isOnlineApp })
    .from(beat)
    .innerJoin(users, eq(users.id, beat.userId));
}

/**
 * Deletes the rows whose instance stopped beating (none fresh after `freshAfter`), but never
 * those of `keep` (this instance's own and Pusher's); resolves with their users. A row is
 * deleted by one statement only: two sweepers at once share none.
 */
export async function sweepStaleDevices(
  db: Db,
  keep: string[],
  freshAfter: Date,
): Promise<number[]> {
  const rows = await db
    .delete(devicePresence)
    .where(
      and(notInArray(devicePresence.instanceId, keep), lte(devicePresence.heartbeatAt, freshAfter)),
    )
    .returning({ userId: devicePresence.userId });
  return [...new Set(rows.map((row) => row.userId))];
}

/**
 * Users `is_online_app` says online though no row of theirs is fresh after `freshAfter`: an
 * instance that died between deleting rows and settling their users, or an answer written late
 * by the flows (`setDeviceOnline`). Each is settled again.
 */
export async function onlineWithoutFreshDevice(db: Db, freshAfter: Date): Promise<number[]> {
  const rows = await db
    .select({ userId: users.id })
    .from(users)
    .where(
      and(
        eq(users.isOnlineApp, true),
        sql`not exists (select 1 from ${devicePresence} where ${devicePresence.userId} = ${users.id} and ${fresh(freshAfter)})`,
      ),
    );
  return rows.map((row) => row.userId);
}

/**
 * Deletes the rows of every holder but `keep`: at the start of the only instance on the
 * database (PGlite), whatever an earlier run left holds nothing any more.
 */
export async function forgetOtherHolders(db: Db, keep: string[]): Promise<void> {
  await db.delete(devicePresence).where(notInArray(devicePresence.instanceId, keep));
}
