/**
 * Queries over the users of calls (`call_users`) that are not the routing's: who took part in
 * which call (`recording-access.ts`, the history's recordings).
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { DbOrTx } from '../db/database';
import { callUsers } from '../db/schema';

/**
 * Of `calls` (of the user's account), those whose recordings `userId` may play without being a
 * supervisor: the calls they are the agent of, or joined.
 */
export async function callsTakenPartIn(
  db: DbOrTx,
  userId: number,
  calls: ReadonlyArray<{ id: number; userId: number | null }>,
): Promise<Set<number>> {
  const mine = new Set(calls.filter((call) => call.userId === userId).map((call) => call.id));
  const others = calls.filter((call) => !mine.has(call.id)).map((call) => call.id);
  if (others.length === 0) return mine;
  const joined = await db
    .selectDistinct({ callId: callUsers.callId })
    .from(callUsers)
    .where(
      and(
        eq(callUsers.userId, userId),
        inArray(callUsers.callId, others),
        isNotNull(callUsers.answeredAt),
      ),
    );
  for (const row of joined) mine.add(row.callId);
  return mine;
}
