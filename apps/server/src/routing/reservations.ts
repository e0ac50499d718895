/**
 * Reservations (issue 38, "the database is the lock"): a ring is a `call_users` row with outcome
 * `ringing` and an expiry (`expires_at`). An agent is reserved by one statement that picks the
 * longest idle eligible agent, locking their row and skipping rows other statements hold
 * (`for update skip locked`), and inserts the ring; the unique index
 * `call_users_one_live_ring_idx` makes a second live ring for one agent impossible whatever any
 * instance remembers. A statement that loses that race (unique violation) is run again: the
 * agent it wanted is busy now, and the next one is picked.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { CallUserRow } from '../calls/calls-repo';
import { queryRows, type Db } from '../db/database';
import { routingChanged } from '../db/routing-changes';
import { callUsers, LIVE_RESERVATION_PREDICATE } from '../db/schema';
import { rowFromJson } from '../leads/intake-repo';
import { lockingPick, type EligibilityFilter, type RoutableAgent } from './routing-repo';

/** A reservation lost to another at the same moment is tried again this many times. */
export const RESERVE_ATTEMPTS = 5;

/** What to reserve: whom (the pick's filter, for one call) and the ring's fields. */
export interface ReserveRequest extends EligibilityFilter {
  callId: number;
  preferUserId?: number;
  /** The ring's type (a lead, or a transfer). */
  type: 'lead' | 'transfer';
  invitedByUserId: number | null;
  /** A team transfer: the team offered the call (stored on the ring). */
  ringTeamId: number | null;
  /** When the reservation expires (now + the ring timeout). */
  expiresAt: Date;
  /**
   * Tries on a unique violation (`RESERVE_ATTEMPTS`); 1 inside a transaction, which the
   * violation aborted: its caller tries again.
   */
  attempts?: number;
}

/** PostgreSQL's unique_violation (23505), from PGlite or `pg`, bare or wrapped by Drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/**
 * Reserves the next eligible agent for the call in one statement (see the file's comment):
 * resolves with the agent and their ring, or null when nobody eligible is free.
 */
export async function reserveAgent(
  db: Db,
  request: ReserveRequest,
): Promise<{ agent: RoutableAgent; callUser: CallUserRow } | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [row] = await queryRows<Record<string, unknown>>(
        db,
        sql`insert into call_users
            (call_id, user_id, type, autoaccept, outcome, invited_by_user_id, team_id, expires_at)
          select ${request.callId}::int, picked.id, ${request.type}::text, picked.autoaccept,
            'ringing', ${request.invitedByUserId}::int, ${request.ringTeamId}::int,
            ${request.expiresAt.toISOString()}::timestamptz
          from (${lockingPick(db, request)}) as picked
          returning *`,
      );
      if (!row) return null;
      routingChanged();
      const callUser = rowFromJson(callUsers, row) as CallUserRow;
      return {
        agent: {
          id: callUser.userId,
          accountId: request.accountId,
          autoaccept: callUser.autoaccept,
        },
        callUser,
      };
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= (request.attempts ?? RESERVE_ATTEMPTS))
        throw error;
    }
  }
}

/**
 * Ends a ring that is still going (a compare-and-set on outcome `ringing`): resolves with
 * whether this call ended it. Its own timer, another instance's sweeper, the agent's Ignore and a
 * device error may all try at once; exactly one moves the call on.
 */
export async function endRing(
  db: Db,
  callUserId: number,
  outcome: 'rejected' | 'missed',
): Promise<boolean> {
  const ended = await db
    .update(callUsers)
    .set({ outcome })
    .where(and(eq(callUsers.id, callUserId), eq(callUsers.outcome, 'ringing')))
    .returning({ id: callUsers.id });
  routingChanged();
  return ended.length > 0;
}

/**
 * Claims up to `limit` rings still going whose reservation expired at or before `dueBy`, oldest
 * first, skipping rings another sweeper is claiming at this moment (`for update skip locked`).
 * A claimed ring's expiry moves to `retryAt`: no other sweeper takes it meanwhile, and if the
 * instance that claimed it dies before moving it on, it is due again then.
 */
export async function claimDueRings(
  db: Db,
  dueBy: Date,
  retryAt: Date,
  limit: number,
): Promise<Array<{ callUserId: number; callSid: string }>> {
  return queryRows<{ callUserId: number; callSid: string }>(
    db,
    sql`update call_users set expires_at = ${retryAt.toISOString()}::timestamptz
        from calls
        where calls.id = call_users.call_id
          and call_users.id in (
            select due.id from call_users due
            where due.outcome = 'ringing' and due.expires_at <= ${dueBy.toISOString()}::timestamptz
            order by due.expires_at
            limit ${limit}
            for update skip locked)
        returning call_users.id as "callUserId", calls.sid as "callSid"`,
  );
}

/** A ring of one named user into a live call (a conference invitation, a supervisor). */
export interface ParticipantRing {
  callId: number;
  userId: number;
  type: 'conference' | 'listen' | 'whisper' | 'barge';
  autoaccept: boolean;
  invitedByUserId: number | null;
  /** When the ring's reservation expires (now + the ring timeout). */
  expiresAt: Date;
}

/**
 * Stores the ring of a named user into a live call; resolves with it, or null when the user
 * holds a live reservation already (a conference invitation is one, backed by the unique index
 * `call_users_one_live_ring_idx`; a supervisor's ring is not, and always stored).
 */
export async function reserveParticipant(
  db: Db,
  ring: ParticipantRing,
): Promise<CallUserRow | null> {
  const [row] = await queryRows<Record<string, unknown>>(
    db,
    sql`insert into call_users
        (call_id, user_id, type, autoaccept, outcome, invited_by_user_id, expires_at)
      values (${ring.callId}::int, ${ring.userId}::int, ${ring.type}::text,
        ${ring.autoaccept}::boolean, 'ringing', ${ring.invitedByUserId}::int,
        ${ring.expiresAt.toISOString()}::timestamptz)
      on conflict (user_id) where ${sql.raw(LIVE_RESERVATION_PREDICATE)} do nothing
      returning *`,
  );
  routingChanged();
  return row ? (rowFromJson(callUsers, row) as CallUserRow) : null;
}
