/**
 * Supervisors' actions on agents' calls (`supervision_events`): stored when a supervisor joins a
 * call or changes role, read back for the history of people who may supervise.
 */
import { asc, eq, inArray } from 'drizzle-orm';
import type { SupervisionEntry } from '@leadline/contracts';
import type { Db } from '../db/database';
import { supervisionEvents, users } from '../db/schema';

/** Stores that `userId` took `role` on the call now. */
export async function recordSupervision(
  db: Db,
  event: { callId: number; userId: number; role: 'listen' | 'whisper' | 'barge' },
): Promise<void> {
  await db.insert(supervisionEvents).values(event);
}

/** The supervisors' actions on each of `callIds`, oldest first (calls without any are absent). */
export async function supervisionOf(
  db: Db,
  callIds: readonly number[],
): Promise<Map<number, SupervisionEntry[]>> {
  const byCall = new Map<number, SupervisionEntry[]>();
  if (callIds.length === 0) return byCall;
  const rows = await db
    .select({
      callId: supervisionEvents.callId,
      role: supervisionEvents.role,
      at: supervisionEvents.createdAt,
      name: users.fullName,
    })
    .from(supervisionEvents)
    .innerJoin(users, eq(users.id, supervisionEvents.userId))
    .where(inArray(supervisionEvents.callId, [...callIds]))
    .orderBy(asc(supervisionEvents.createdAt), asc(supervisionEvents.id));
  for (const row of rows) {
    const entries = byCall.get(row.callId) ?? [];
    entries.push({ name: row.name, role: row.role, at: row.at.toISOString() });
    byCall.set(row.callId, entries);
  }
  return byCall;
}
