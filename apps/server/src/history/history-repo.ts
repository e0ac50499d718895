/** The call history of one user: calls they took or were rung for, newest first. */
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import { formatPhone, type HistoryRow, type PageMeta } from '@leadline/contracts';
import type { Db } from '../db/database';
import { callUsers, calls, leads, notes, tags, users } from '../db/schema';
import { callsTakenPartIn } from '../calls/call-users-repo';
import { supervisionOf } from '../calls/supervision-repo';
import { historyStatus, formatDuration, formatTime } from './history-status';

/** One page of the user's history. */
export async function pageHistory(
  db: Db,
  options: {
    accountId: number;
    userId: number;
    canRetry: boolean;
    /** The user may supervise: each row says which supervisors joined the call. */
    canSeeSupervision?: boolean;
    limit: number;
    page: number;
  },
): Promise<{ data: HistoryRow[]; meta: PageMeta }> {
  // The user's calls: those they took, and those they were rung for. Two index lookups in a
  // union; an OR over both would scan every call of the account.
  const mine = db.$with('mine').as(
    db
      .select({ id: calls.id })
      .from(calls)
      .where(and(eq(calls.accountId, options.accountId), eq(calls.userId, options.userId)))
      .union(
        db
          .select({ id: callUsers.callId })
          .from(callUsers)
          .where(eq(callUsers.userId, options.userId)),
      ),
  );
  const where = and(
    eq(calls.accountId, options.accountId),
    inArray(calls.id, db.select({ id: mine.id }).from(mine)),
  );
  const [{ total } = { total: 0 }] = await db
    .with(mine)
    .select({ total: count() })
    .from(calls)
    .where(where);
  const rows = await db
    .with(mine)
    .select({
      call: calls,
      lead: leads,
      agentName: users.fullName,
      stage: { key: tags.key, name: tags.name, color: tags.color },
    })
    .from(calls)
    .leftJoin(leads, eq(leads.id, calls.leadId))
    .leftJoin(users, eq(users.id, calls.userId))
    .leftJoin(tags, and(eq(tags.profileId, calls.profileId), eq(tags.key, calls.stageKey)))
    .where(where)
    .orderBy(desc(calls.createdAt), desc(calls.id))
    .limit(options.limit)
    .offset((options.page - 1) * options.limit);
  const supervision = options.canSeeSupervision
    ? await supervisionOf(
        db,
        rows.map((r) => r.call.id),
      )
    : null;
  // A recording is linked only for whom may play it: a supervisor, or a user who took part.
  const hearable = options.canSeeSupervision
    ? null
    : await callsTakenPartIn(
        db,
        options.userId,
        rows.map((r) => r.call),
      );
  const notesOf = await notesOfCalls(
    db,
    rows.map((r) => r.call.id),
  );
  return {
    data: rows.map(({ call, lead, agentName, stage }) => {
      const label = lead
        ? [lead.fname, lead.lname].filter(Boolean).join(' ') || formatPhone(lead.phoneNumber)
        : '';
      const retry = options.canRetry && lead !== null;
      return {
        id: call.id,
        direction: call.direction,
        type: call.type,
        recording_url: hearable === null || hearable.has(call.id) ? call.recordingUrl : null,
        created_at: call.createdAt.toISOString(),
        time_formatted: formatTime(call.createdAt),
        status: call.status,
        ...historyStatus(call.status, call.seconds, call.reason),
        seconds: call.seconds,
        duration: formatDuration(call.seconds),
        retry,
        lead_retry: retry
          ? { fname: lead.fname, lname: lead.lname, phone_number: lead.phoneNumber }
          : null,
        disposition: call.disposition,
        stage: stage?.key ? { key: stage.key, name: stage.name, color: stage.color } : null,
        notes: notesOf.get(call.id) ?? [],
        user: agentName === null ? null : { name: agentName },
        lead: lead
          ? {
              fname: lead.fname,
              lname: lead.lname,
              label,
              phone_number: lead.phoneNumber,
              phone_number_formatted: formatPhone(lead.phoneNumber),
            }
          : null,
        phone_number_formatted: call.phoneNumber ? formatPhone(call.phoneNumber) : null,
        ...(supervision ? { supervision: supervision.get(call.id) ?? [] } : {}),
      };
    }),
    meta: {
      current_page: options.page,
      last_page: Math.max(1, Math.ceil(total / options.limit)),
      per_page: options.limit,
      total,
    },
  };
}

/** The notes of `callIds`, oldest first, by call (one query on the notes' call index). */
async function notesOfCalls(
  db: Db,
  callIds: number[],
): Promise<Map<number, { id: number; content: string; created_at: string }[]>> {
  const byCall = new Map<number, { id: number; content: string; created_at: string }[]>();
  if (callIds.length === 0) return byCall;
  const rows = await db
    .select({ id: notes.id, callId: notes.callId, content: notes.content, at: notes.createdAt })
    .from(notes)
    .where(inArray(notes.callId, callIds))
    .orderBy(asc(notes.createdAt), asc(notes.id));
  for (const row of rows) {
    const list = byCall.get(row.callId) ?? [];
    list.push({ id: row.id, content: row.content, created_at: row.at.toISOString() });
    byCall.set(row.callId, list);
  }
  return byCall;
}
