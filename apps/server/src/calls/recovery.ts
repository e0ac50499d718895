/**
 * After a crash: the calls the server left live are over (their rooms died with the process),
 * so they are closed at start, before any device can register again. A call that was talking
 * ends when the server last saw it alive (`last_seen_at`, stamped every few seconds), so its
 * seconds are those it really lasted, give or take one stamp; a web lead that was ringing goes
 * back to the queue; anything else rung ends as missed. Everyone on those calls is freed.
 * docs/reliability.md says what is kept and what is lost.
 */
import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Db } from '../db/database';
import { callPhones, callUsers, calls } from '../db/schema';
import { transitionCall, type CallRow } from './calls-repo';
import { isQueued, isRinging, LIVE_CALL_STATUSES, QUEUED } from './call-status';

/** What recovery did. */
export interface RecoveryReport {
  /** Ids of the calls it closed or put back in the queue. */
  calls: number[];
  /** Of those, the web leads that wait in the queue again. */
  requeued: number[];
}

/** Closes every call a crash left live; resolves with what it did. */
export async function recoverInterruptedCalls(db: Db, now: Date): Promise<RecoveryReport> {
  const report: RecoveryReport = { calls: [], requeued: [] };
  const live = await db
    .select()
    .from(calls)
    .where(
      or(
        inArray(calls.status, LIVE_CALL_STATUSES),
        // An outbound call the console was about to connect: it never will now.
        and(eq(calls.status, QUEUED), eq(calls.source, 'outbound')),
      ),
    );
  for (const call of live) {
    await db.transaction(async (tx) => {
      const endedAt = lastAlive(call, now);
      await tx
        .update(callUsers)
        .set({ leftAt: endedAt })
        .where(
          and(
            eq(callUsers.callId, call.id),
            eq(callUsers.outcome, 'accepted'),
            isNull(callUsers.leftAt),
          ),
        );
      await tx
        .update(callUsers)
        .set({ outcome: 'canceled' })
        .where(and(eq(callUsers.callId, call.id), eq(callUsers.outcome, 'ringing')));
      await tx
        .update(callPhones)
        .set({ state: 'left', leftAt: endedAt })
        .where(
          and(
            eq(callPhones.callId, call.id),
            or(eq(callPhones.state, 'ringing'), eq(callPhones.state, 'answered')),
          ),
        );
      if (isQueued(call.status)) {
        await transitionCall(tx, call, 'cancel', { reason: 'server-restart', endedAt });
      } else if (isRinging(call.status) && call.source === 'web') {
        await transitionCall(tx, call, 'requeue', {
          reason: 'server-restart',
          waitingSince: call.waitingSince ?? call.createdAt,
        });
        report.requeued.push(call.id);
      } else {
        const seconds = call.answeredAt
          ? Math.max(0, Math.round((endedAt.getTime() - call.answeredAt.getTime()) / 1000))
          : 0;
        await transitionCall(tx, call, 'restart', {
          reason: 'server-restart',
          endedAt,
          seconds,
          held: false,
        });
      }
    });
    report.calls.push(call.id);
  }
  return report;
}

/** When the call was last known alive: its last stamp, else its answer or its creation. */
function lastAlive(call: CallRow, now: Date): Date {
  const candidates = [call.lastSeenAt, call.answeredAt, call.createdAt].filter(
    (d): d is Date => d !== null,
  );
  const last = new Date(Math.max(...candidates.map((d) => d.getTime())));
  return last > now ? now : last;
}
