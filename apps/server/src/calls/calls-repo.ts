/** Database access for calls, the users rung for them, and notes. */
import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { type CallType, type Disposition } from '@leadline/contracts';
import type { Db, DbOrTx } from '../db/database';
import { prepared } from '../db/prepared';
import { routingChanged } from '../db/routing-changes';
import {
  callPhones,
  callUsers,
  calls,
  notes,
  tags,
  type CallPhoneState,
  type CallReason,
  type CallStatus,
  type CallUserOutcome,
} from '../db/schema';
import { LIVE_CALL_STATUSES, nextStatus, type CallEvent } from './call-status';

export { FINAL_STATUSES } from './call-status';

/** A call row. */
export type CallRow = typeof calls.$inferSelect;
/** A call-user row. */
export type CallUserRow = typeof callUsers.$inferSelect;
/** A phone party of a call. */
export type CallPhoneRow = typeof callPhones.$inferSelect;
/** A database or a transaction of it (defined with `Db` in `db/database`). */
export type { DbOrTx };

/** A new call sid, shaped like Twilio's (`CA` + 32 hex digits). */
export const newCallSid = (): string => `CA${randomBytes(16).toString('hex')}`;

/** What a new call is made of (the rest takes the columns' defaults). */
export type NewCall = Pick<
  typeof calls.$inferInsert,
  'accountId' | 'leadId' | 'profileId' | 'phoneNumber'
> &
  Partial<
    Pick<
      typeof calls.$inferInsert,
      | 'sid'
      | 'type'
      | 'direction'
      | 'status'
      | 'callerNumberId'
      | 'userId'
      | 'source'
      | 'reason'
      | 'waitingSince'
      | 'endedAt'
    >
  >;

/**
 * Creates a call (a prepared statement: every lead makes one). `sid` when the caller already
 * serialises work on it; `status` other than `queued` for a call whose first step is known
 * before it is stored (a new lead rung at once, queued or refused: `bornAs`).
 */
export async function insertCall(db: DbOrTx, values: NewCall): Promise<CallRow> {
  const p = (name: string) => sql.placeholder(name);
  const statement = prepared(db as Db, 'insert-call', () =>
    (db as Db)
      .insert(calls)
      .values({
        sid: p('sid'),
        accountId: p('accountId'),
        leadId: p('leadId'),
        profileId: p('profileId'),
        phoneNumber: p('phoneNumber'),
        type: p('type'),
        direction: p('direction'),
        status: p('status'),
        callerNumberId: p('callerNumberId'),
        userId: p('userId'),
        source: p('source'),
        reason: p('reason'),
        // Raw placeholders: the column's encoder would be run on null.
        waitingSince: sql`${p('waitingSince')}`,
        endedAt: sql`${p('endedAt')}`,
      })
      .returning()
      .prepare('insert_call'),
  );
  const [row] = await statement.execute({
    sid: values.sid ?? newCallSid(),
    accountId: values.accountId,
    leadId: values.leadId ?? null,
    profileId: values.profileId ?? null,
    phoneNumber: values.phoneNumber ?? null,
    type: values.type ?? 'lead',
    direction: values.direction ?? 'outbound',
    status: values.status ?? 'queued',
    callerNumberId: values.callerNumberId ?? null,
    userId: values.userId ?? null,
    source: values.source ?? 'web',
    reason: values.reason ?? null,
    waitingSince: values.waitingSince ?? null,
    endedAt: values.endedAt ?? null,
  });
  return row!;
}

/** The status a call is stored with when `events` already happened to it (from `queued`). */
export function bornAs(...events: CallEvent[]): CallStatus {
  return events.reduce<CallStatus>((status, event) => nextStatus(status, event), 'queued');
}

/** The call with this sid, or null. */
export async function findCallBySid(db: Db, sid: string): Promise<CallRow | null> {
  const rows = await db.select().from(calls).where(eq(calls.sid, sid)).limit(1);
  return rows[0] ?? null;
}

/** A call by id, or null (internal use: not scoped to an account). */
export async function findCallById(db: Db, callId: number): Promise<CallRow | null> {
  const rows = await db.select().from(calls).where(eq(calls.id, callId)).limit(1);
  return rows[0] ?? null;
}

/** A call-user row by id, or null (internal use). */
export async function findCallUserById(db: Db, id: number): Promise<CallUserRow | null> {
  const rows = await db.select().from(callUsers).where(eq(callUsers.id, id)).limit(1);
  return rows[0] ?? null;
}

/** A call of the account by id, or null. */
export async function findAccountCall(
  db: DbOrTx,
  accountId: number,
  callId: number,
): Promise<CallRow | null> {
  const rows = await db
    .select()
    .from(calls)
    .where(and(eq(calls.accountId, accountId), eq(calls.id, callId)))
    .limit(1);
  return rows[0] ?? null;
}

/** Changes fields of a call (never its status: see `transitionCall`). */
export async function updateCall(
  db: DbOrTx,
  callId: number,
  values: Partial<
    Pick<
      CallRow,
      | 'userId'
      | 'leadId'
      | 'answeredAt'
      | 'endedAt'
      | 'seconds'
      | 'disposition'
      | 'stageKey'
      | 'held'
      | 'recordingUrl'
      | 'recordingPath'
      | 'lastSeenAt'
      | 'callerNumberId'
      | 'type'
    >
  >,
): Promise<void> {
  await db.update(calls).set(values).where(eq(calls.id, callId));
}

/** Thrown when a call's status changed under a transition (a bug: calls change one at a time). */
export class StaleCallError extends Error {
  override name = 'StaleCallError';
}

/**
 * Moves a call through its lifecycle: the status the table gives for `event` (an illegal event
 * throws), with `values` written in the same statement. Resolves with the updated row.
 */
export async function transitionCall(
  db: DbOrTx,
  call: CallRow,
  event: CallEvent,
  values: Partial<
    Pick<
      CallRow,
      | 'reason'
      | 'waitingSince'
      | 'userId'
      | 'answeredAt'
      | 'endedAt'
      | 'seconds'
      | 'held'
      | 'leadId'
    >
  > = {},
): Promise<CallRow> {
  const status = nextStatus(call.status, event);
  const [row] = await db
    .update(calls)
    .set({ ...values, status })
    .where(and(eq(calls.id, call.id), eq(calls.status, call.status)))
    .returning();
  if (!row) throw new StaleCallError(`call ${call.id} is no longer ${call.status} (${event})`);
  routingChanged();
  return row;
}

/** Why a call ended without talk, as the history explains it. */
export type { CallReason };

/** The sequence of call-user ids (a serial column's), from which ids are also taken ahead. */
export const CALL_USERS_ID_SEQUENCE = 'call_users_id_seq';

/** Records that a user is being rung for a call (or, `outcome: 'accepted'`, placed it). */
export async function insertCallUser(
  db: DbOrTx,
  values: {
    /** Given when it was taken ahead of time (`IdBlocks`); else the sequence's next. */
    id?: number;
    callId: number;
    userId: number;
    type: CallType;
    autoaccept: boolean;
    outcome?: CallUserOutcome;
    answeredAt?: Date;
    invitedByUserId?: number | null;
    teamId?: number | null;
  },
  options: {
    /**
     * The router took the agent out of its memory of eligible agents when it rang them (a new
     * lead): the write changes nothing it does not know (`routingChanges`).
     */
    routerKnows?: boolean;
  } = {},
): Promise<CallUserRow> {
  const p = (name: string) => sql.placeholder(name);
  const statement = prepared(db as Db, 'insert-call-user', () =>
    (db as Db)
      .insert(callUsers)
      .values({
        // An id taken ahead (`IdBlocks`) when the ring was announced before it was stored.
        id: sql`coalesce(${p('id')}::int, nextval(${sql.raw(`'${CALL_USERS_ID_SEQUENCE}'`)}))`,
        callId: p('callId'),
        userId: p('userId'),
        type: p('type'),
        autoaccept: p('autoaccept'),
        outcome: p('outcome'),
        answeredAt: sql`${p('answeredAt')}`,
        invitedByUserId: p('invitedByUserId'),
        teamId: p('teamId'),
      })
      .returning()
      .prepare('insert_call_user'),
  );
  const [row] = await statement.execute({
    id: values.id ?? null,
    callId: values.callId,
    userId: values.userId,
    type: values.type,
    autoaccept: values.autoaccept,
    outcome: values.outcome ?? 'ringing',
    answeredAt: values.answeredAt ?? null,
    invitedByUserId: values.invitedByUserId ?? null,
    teamId: values.teamId ?? null,
  });
  if (!options.routerKnows) routingChanged();
  return row!;
}

/** The user's latest call-user row of a call (optionally with that outcome), or null. */
export async function findCallUserOf(
  db: Db,
  callId: number,
  userId: number,
  outcome?: CallUserOutcome,
): Promise<CallUserRow | null> {
  const [row] = await db
    .select()
    .from(callUsers)
    .where(
      and(
        eq(callUsers.callId, callId),
        eq(callUsers.userId, userId),
        outcome === undefined ? undefined : eq(callUsers.outcome, outcome),
      ),
    )
    .orderBy(desc(callUsers.id))
    .limit(1);
  return row ?? null;
}

/** Changes fields of a call-user row. */
export async function updateCallUser(
  db: DbOrTx,
  id: number,
  values: Partial<Pick<CallUserRow, 'outcome' | 'answeredAt' | 'leftAt' | 'type'>>,
): Promise<void> {
  await db.update(callUsers).set(values).where(eq(callUsers.id, id));
  routingChanged();
}

/** The users on a call now (answered, not left), in the order they joined. */
export async function activeParticipants(db: Db, callId: number): Promise<CallUserRow[]> {
  return db
    .select()
    .from(callUsers)
    .where(
      and(
        eq(callUsers.callId, callId),
        eq(callUsers.outcome, 'accepted'),
        isNull(callUsers.leftAt),
      ),
    )
    .orderBy(asc(callUsers.id));
}

/** Every call-user row of a call, in the order they were rung. */
export async function callUsersOf(db: DbOrTx, callId: number): Promise<CallUserRow[]> {
  return db.select().from(callUsers).where(eq(callUsers.callId, callId)).orderBy(asc(callUsers.id));
}

/** The users still being rung for a call. */
export async function ringingCallUsers(db: Db, callId: number): Promise<CallUserRow[]> {
  return db
    .select()
    .from(callUsers)
    .where(and(eq(callUsers.callId, callId), eq(callUsers.outcome, 'ringing')))
    .orderBy(asc(callUsers.id));
}

/** The live call the user is on (answered, not left) with their call-user row, or null. */
export async function findLiveParticipation(
  db: Db,
  accountId: number,
  userId: number,
): Promise<{ call: CallRow; callUser: CallUserRow } | null> {
  const [row] = await db
    .select({ call: calls, callUser: callUsers })
    .from(callUsers)
    .innerJoin(calls, eq(calls.id, callUsers.callId))
    .where(
      and(
        eq(calls.accountId, accountId),
        eq(callUsers.userId, userId),
        eq(callUsers.outcome, 'accepted'),
        isNull(callUsers.leftAt),
        inArray(calls.status, LIVE_CALL_STATUSES),
      ),
    )
    .orderBy(desc(callUsers.id))
    .limit(1);
  return row ?? null;
}

/** Sets the outcome of the ringing call-user rows of a call (all users, or one). */
export async function settleCallUsers(
  db: DbOrTx,
  callId: number,
  outcome: CallUserOutcome,
  userId?: number,
): Promise<void> {
  await db
    .update(callUsers)
    .set({ outcome })
    .where(
      and(
        eq(callUsers.callId, callId),
        eq(callUsers.outcome, 'ringing'),
        userId === undefined ? undefined : eq(callUsers.userId, userId),
      ),
    );
  routingChanged();
}

/**
 * A call-user row of the user, with its call, or null (another user's row is not found). A
 * prepared statement: the ringing console loads its call user with it first
 * (`GET /api/v1/callusers/{id}`, then `toCallResource`).
 */
export async function findUserCallUser(
  db: Db,
  userId: number,
  callUserId: number,
): Promise<{ callUser: CallUserRow; call: CallRow } | null> {
  const p = (name: string) => sql.placeholder(name);
  const statement = prepared(db, 'user-call-user', () =>
    db
      .select({ callUser: callUsers, call: calls })
      .from(callUsers)
      .innerJoin(calls, eq(calls.id, callUsers.callId))
      .where(and(eq(callUsers.id, p('callUserId')), eq(callUsers.userId, p('userId'))))
      .limit(1)
      .prepare('user_call_user'),
  );
  const [row] = await statement.execute({ callUserId, userId });
  return row ?? null;
}

/** Records the agent's disposition of a call. */
export async function setDisposition(
  db: DbOrTx,
  callId: number,
  disposition: Disposition,
): Promise<void> {
  await db.update(calls).set({ disposition }).where(eq(calls.id, callId));
}

/** The tag keys of a profile. */
export async function profileTagKeys(db: DbOrTx, profileId: number): Promise<string[]> {
  const rows = await db.select({ key: tags.key }).from(tags).where(eq(tags.profileId, profileId));
  return rows.map((r) => r.key);
}

/** Stores a note on a call. */
export async function insertNote(
  db: DbOrTx,
  values: { accountId: number; callId: number; userId: number; content: string },
): Promise<{ id: number }> {
  const [row] = await db.insert(notes).values(values).returning({ id: notes.id });
  return row!;
}

/** Marks everyone still on the call as left and cancels the rings that are still going. */
export async function closeCallUsers(db: DbOrTx, callId: number, at: Date): Promise<void> {
  await db
    .update(callUsers)
    .set({ leftAt: at })
    .where(
      and(
        eq(callUsers.callId, callId),
        eq(callUsers.outcome, 'accepted'),
        isNull(callUsers.leftAt),
      ),
    );
  await settleCallUsers(db, callId, 'canceled');
}

/** Records a phone party of a call (dialled, or an inbound caller). */
export async function insertCallPhone(
  db: DbOrTx,
  values: {
    callId: number;
    participantId: string;
    direction: 'inbound' | 'outbound';
    phoneNumber: string;
    fromNumber: string | null;
    state?: CallPhoneState;
    answeredAt?: Date;
  },
): Promise<CallPhoneRow> {
  const [row] = await db.insert(callPhones).values(values).returning();
  return row!;
}

/** The phone party with this provider id, or null. */
export async function findCallPhone(db: Db, participantId: string): Promise<CallPhoneRow | null> {
  const [row] = await db
    .select()
    .from(callPhones)
    .where(eq(callPhones.participantId, participantId));
  return row ?? null;
}

/** The phone parties of a call that are ringing or talking, oldest first. */
export async function livePhones(db: DbOrTx, callId: number): Promise<CallPhoneRow[]> {
  return db
    .select()
    .from(callPhones)
    .where(
      and(
        eq(callPhones.callId, callId),
        or(eq(callPhones.state, 'ringing'), eq(callPhones.state, 'answered')),
      ),
    )
    .orderBy(asc(callPhones.id));
}

/** Changes a phone party. */
export async function updateCallPhone(
  db: DbOrTx,
  id: number,
  values: Partial<Pick<CallPhoneRow, 'state' | 'failure' | 'answeredAt' | 'leftAt'>>,
): Promise<void> {
  await db.update(callPhones).set(values).where(eq(callPhones.id, id));
}

/** Marks every phone party of the call that is still ringing or talking as gone. */
export async function closeCallPhones(db: DbOrTx, callId: number, at: Date): Promise<void> {
  await db
    .update(callPhones)
    .set({ state: 'left', leftAt: at })
    .where(
      and(
        eq(callPhones.callId, callId),
        or(eq(callPhones.state, 'ringing'), eq(callPhones.state, 'answered')),
      ),
    );
}

/** The calls that are live now (rung or talking), oldest first. */
export async function liveCalls(db: Db): Promise<CallRow[]> {
  return db
    .select()
    .from(calls)
    .where(inArray(calls.status, LIVE_CALL_STATUSES))
    .orderBy(asc(calls.id));
}

/** Stamps every live call as seen now (a crash loses at most the time since). */
export async function markLiveCallsSeen(db: Db, at: Date): Promise<void> {
  await db.update(calls).set({ lastSeenAt: at }).where(inArray(calls.status, LIVE_CALL_STATUSES));
}
