/**
 * Database access of the router: which agents may be offered a call now, longest idle first;
 * whether a team is staffed at all; the queue of web leads waiting for an agent.
 */
import {
  and,
  asc,
  eq,
  inArray,
  isNotNull,
  isNull,
  lte,
  notInArray,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';
import { prepared } from '../db/prepared';
import { calls, profiles, users, type CallReason } from '../db/schema';
import type { UserRow } from '../users/users-repo';
import type { CallRow } from '../calls/calls-repo';
import { OPEN_CALL_STATUSES, QUEUED, statusListSql } from '../calls/call-status';

/** Who may be offered a call: the account, the team (none: anyone), who to leave out. */
export interface EligibilityFilter {
  accountId: number;
  /** The profile's team (or the transfer's); null: every agent of the account. */
  teamId: number | null;
  /** Users who already had a ring for this call (tried) are skipped. */
  callId?: number;
  /** Only these users (Check for lead: the caller only). */
  onlyUserIds?: number[];
  /** Left out (a transfer's requester). */
  excludeUserIds?: number[];
  now: Date;
}

/**
 * `"users"."id"`, qualified: drizzle leaves columns unqualified in single-source selects, and an
 * unqualified `id` inside a subquery would name the subquery's own table.
 */
const USERS_ID = sql.raw('"users"."id"');

/**
 * Users rung for, or talking on, a live call, and users holding a live reservation whatever
 * their call became (the unique index `call_users_one_live_ring_idx`, whose predicate the
 * second part repeats, refuses them another until it is moved on; the ring sweeper does that
 * at its expiry): a small set, read once per query (a hashed anti-join) rather than once per
 * agent.
 */
const BUSY_USERS = sql`(
    select busy_cu.user_id from call_users busy_cu
    inner join calls busy_c on busy_c.id = busy_cu.call_id
    where busy_c.status in ${sql.raw(statusListSql(OPEN_CALL_STATUSES))}
      and (busy_cu.outcome = 'ringing'
        or (busy_cu.outcome = 'accepted' and busy_cu.left_at is null))
    union all
    select reserved_cu.user_id from call_users reserved_cu
    where reserved_cu.outcome = 'ringing' and reserved_cu.expires_at is not null
      and reserved_cu.type in ('lead', 'transfer', 'conference'))`;

/** In the team: `teamId` a number, or a placeholder of a prepared statement. */
const inTeam = (teamId: unknown): SQL =>
  sql`${USERS_ID} in (select team_tm.user_id from team_members team_tm
    where team_tm.team_id = ${teamId})`;

/**
 * Not yet tried for the call: never rung for it, or only rung by a ring that was withdrawn
 * before they could answer it ('canceled', e.g. a restart interrupted it and re-queued the lead).
 */
const notTriedFor = (callId: number): SQL =>
  sql`${USERS_ID} not in (select tried_cu.user_id from call_users tried_cu
    where tried_cu.call_id = ${callId} and tried_cu.outcome <> 'canceled')`;

const reachable = () => or(eq(users.isOnlineApp, true), eq(users.isMobile, true))!;

/** Not deactivated by an admin (issue 37): a deactivated user is never offered a call. */
const active = () => eq(users.active, true);

/** What routing needs of the agent it picks. */
export type RoutableAgent = Pick<UserRow, 'id' | 'accountId' | 'autoaccept'>;

/**
 * A value of a query: bound when the query is built for one call, a placeholder (`sql.placeholder`)
 * when it is built once and prepared.
 */
type Param = (name: string, value: unknown) => unknown;
const bound: Param = (_name, value) => value;
const placeholder: Param = (name) => sql.placeholder(name);

/** The pick, built with `param` for each value (see `nextEligibleAgent`). */
function pickQuery(db: Db, filter: EligibilityFilter & { preferUserId?: number }, param: Param) {
  const triedAlready =
    filter.callId === undefined ? undefined : notTriedFor(param('callId', filter.callId) as number);
  const preferred =
    filter.preferUserId === undefined
      ? []
      : [sql`(${users.id} = ${param('preferUserId', filter.preferUserId)}) desc`];
  return db
    .select({ id: users.id, accountId: users.accountId, autoaccept: users.autoaccept })
    .from(users)
    .where(
      and(
        eq(users.accountId, param('accountId', filter.accountId) as number),
        eq(users.isAvailable, true),
        active(),
        reachable(),
        or(isNull(users.wrapUpUntil), lte(users.wrapUpUntil, param('now', filter.now) as Date)),
        sql`${USERS_ID} not in ${BUSY_USERS}`,
        filter.teamId === null ? undefined : inTeam(param('teamId', filter.teamId)),
        triedAlready,
        filter.onlyUserIds ? inArray(users.id, filter.onlyUserIds) : undefined,
        param === placeholder
          ? sql`${USERS_ID} <> all(${sql.placeholder('excluded')}::int[])`
          : filter.excludeUserIds?.length
            ? notInArray(users.id, filter.excludeUserIds)
            : undefined,
      ),
    )
    .orderBy(...preferred, sql`${users.idleSince} asc nulls first`, asc(users.id))
    .limit(1);
}

/**
 * The agent to offer a call now (spec section 6 and the routing rules), or null: active, online
 * in the app or on mobile, available, not rung for or on a call, not wrapping up, in the team,
 * not yet tried for this call; `preferUserId` if they are eligible, else the longest idle (never
 * idle-stamped first, then by id). One row: the database picks, nothing else is read. Every
 * shape but `onlyUserIds` runs as a prepared statement.
 */
export async function nextEligibleAgent(
  db: Db,
  filter: EligibilityFilter & { preferUserId?: number },
): Promise<RoutableAgent | null> {
  if (filter.onlyUserIds) {
    const [agent] = await pickQuery(db, filter, bound);
    return agent ?? null;
  }
  const shape = `pick:${filter.teamId === null ? 'all' : 'team'}:${
    filter.callId === undefined ? 'new' : 'call'
  }:${filter.preferUserId === undefined ? 'idle' : 'prefer'}`;
  const statement = prepared(db, shape, () =>
    pickQuery(db, filter, placeholder).prepare(shape.replace(/:/g, '_')),
  );
  const [agent] = await statement.execute({
    accountId: filter.accountId,
    now: filter.now,
    teamId: filter.teamId,
    callId: filter.callId,
    preferUserId: filter.preferUserId,
    excluded: filter.excludeUserIds ?? [],
  });
  return agent ?? null;
}

/**
 * The pick of `nextEligibleAgent` as a subquery that locks the agent's row it answers and skips
 * rows another statement has locked (`for update skip locked`): two reservations running at
 * once never pick the same agent (`reservations.ts`).
 */
export function lockingPick(db: Db, filter: EligibilityFilter & { preferUserId?: number }) {
  return pickQuery(db, filter, bound).for('update', { skipLocked: true });
}

/** Whether the user is rung for, or talking on, a live call (what routing calls busy). */
export async function isRungOrOnCall(db: Db, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), sql`${USERS_ID} in ${BUSY_USERS}`))
    .limit(1);
  return row !== undefined;
}

/**
 * Active agents of the account (`accountId` placeholder) online and available, in the team
 * (`teamId` placeholder) when there is one: busy or not, wrapping up or not.
 */
const onDutyIn = (teamId: number | null): SQL =>
  and(
    eq(users.accountId, sql.placeholder('accountId')),
    eq(users.isAvailable, true),
    active(),
    reachable(),
    teamId === null ? undefined : inTeam(sql.placeholder('teamId')),
  )!;

/** Who of a team may take a new call now (`routingCandidates`). */
export interface RoutingCandidates {
  /** Every agent the team may be offered a new call now, longest idle first. */
  agents: RoutableAgent[];
  /** Whether any agent of the team is online and available (busy or not). */
  staffed: boolean;
  /** The earliest end of a wrap-up among them still to come, or null. */
  nextWrapUpEnd: Date | null;
}

/**
 * Who of the account's team may be offered a new call now, in one statement (the router's
 * memory of eligible agents, `CandidateCache`, is read from it): the agents online and
 * available, each marked eligible as `nextEligibleAgent` picks for a call nobody was tried for
 * yet (not wrapping up, not rung for or on a call), longest idle first. Whether the team is
 * staffed at all (if so, a call nobody can take now is "all agents busy", else "no agents
 * online") and the earliest end of a wrap-up still to come among them (who is eligible changes
 * then without any write) come with every row.
 */
export async function routingCandidates(
  db: Db,
  accountId: number,
  teamId: number | null,
  now: Date,
): Promise<RoutingCandidates> {
  const shape = `candidates:${teamId === null ? 'all' : 'team'}`;
  const statement = prepared(db, shape, () => {
    const at = sql.placeholder('now');
    return db
      .select({
        id: users.id,
        accountId: users.accountId,
        autoaccept: users.autoaccept,
        eligible: sql<boolean>`coalesce(
          (${users.wrapUpUntil} is null or ${users.wrapUpUntil} <= ${at})
            and ${USERS_ID} not in ${BUSY_USERS},
          false)`,
        nextWrapUpEndMs: sql<
          number | null
        >`(extract(epoch from min(${users.wrapUpUntil}) filter (where ${users.wrapUpUntil} > ${at}) over ()) * 1000)::float8`,
      })
      .from(users)
      .where(onDutyIn(teamId))
      .orderBy(sql`${users.idleSince} asc nulls first`, asc(users.id))
      .prepare(shape.replace(/:/g, '_'));
  });
  const rows = await statement.execute({ accountId, teamId, now });
  const end = rows[0]?.nextWrapUpEndMs ?? null;
  return {
    agents: rows
      .filter((row) => row.eligible)
      .map(({ id, accountId, autoaccept }) => ({ id, accountId, autoaccept })),
    staffed: rows.length > 0,
    nextWrapUpEnd: end === null ? null : new Date(Number(end)),
  };
}

/** Why nobody eligible is left (see `unstaffedReason`), built with `param` for each value. */
function unstaffedQuery(
  db: Db,
  accountId: number,
  teamId: number | null,
  callId: number | undefined,
  param: Param,
) {
  return db
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.accountId, param('accountId', accountId) as number),
        eq(users.isAvailable, true),
        active(),
        reachable(),
        teamId === null ? undefined : inTeam(param('teamId', teamId)),
        callId === undefined ? undefined : notTriedFor(param('callId', callId) as number),
      ),
    )
    .limit(1);
}

/**
 * Why nobody eligible is left: some agent of the team not yet tried for the call is online and
 * available but busy (on a call, rung, wrapping up), so may free up → all busy; else nobody.
 */
export async function unstaffedReason(
  db: Db,
  accountId: number,
  teamId: number | null,
  callId?: number,
): Promise<Extract<CallReason, 'all-agents-busy' | 'no-agents-online'>> {
  const shape = `unstaffed:${teamId === null ? 'all' : 'team'}:${callId === undefined ? 'new' : 'call'}`;
  const statement = prepared(db, shape, () =>
    unstaffedQuery(db, accountId, teamId, callId, placeholder).prepare(shape.replace(/:/g, '_')),
  );
  const [row] = await statement.execute({ accountId, teamId, callId });
  return row ? 'all-agents-busy' : 'no-agents-online';
}

/** A profile with its routing settings. */
export type ProfileRow = typeof profiles.$inferSelect;

/** The account's first profile (a lead without one is routed by it), or null. */
export async function defaultProfile(db: Db, accountId: number): Promise<ProfileRow | null> {
  const [row] = await db
    .select()
    .from(profiles)
    .where(eq(profiles.accountId, accountId))
    .orderBy(profiles.id)
    .limit(1);
  return row ?? null;
}

/** The profile of a call, with its routing settings, or null. */
export async function profileOf(db: Db, profileId: number | null): Promise<ProfileRow | null> {
  if (profileId === null) return null;
  const [row] = await db.select().from(profiles).where(eq(profiles.id, profileId));
  return row ?? null;
}

/**
 * The oldest web lead of the account waiting in the queue, or null; with `userId`, only leads
 * whose profile's team has that user (or whose profile has no team).
 */
export async function oldestQueuedCall(
  db: Db,
  accountId: number,
  userId?: number,
): Promise<CallRow | null> {
  const forUser =
    userId === undefined
      ? undefined
      : sql`(${profiles.teamId} is null or exists (
          select 1 from team_members queue_tm
          where queue_tm.team_id = ${profiles.teamId} and queue_tm.user_id = ${userId}))`;
  const [row] = await db
    .select({ call: calls })
    .from(calls)
    .leftJoin(profiles, eq(profiles.id, calls.profileId))
    .where(
      and(
        eq(calls.accountId, accountId),
        eq(calls.status, QUEUED),
        // Waiting in the queue; not an agent's New Call their console is still connecting.
        isNotNull(calls.waitingSince),
        forUser,
      ),
    )
    .orderBy(asc(calls.waitingSince), asc(calls.id))
    .limit(1)
    // A call another instance is claiming right now (`Router.offerQueued`) is passed over.
    .for('update', { of: calls, skipLocked: true });
  return row?.call ?? null;
}

/** Web leads whose wait in the queue is over (their profile's queue timeout passed). */
export async function expiredQueuedCalls(db: Db, now: Date): Promise<CallRow[]> {
  const rows = await db
    .select({ call: calls })
    .from(calls)
    .leftJoin(profiles, eq(profiles.id, calls.profileId))
    .where(
      and(
        eq(calls.status, QUEUED),
        sql`${calls.waitingSince} is not null`,
        sql`${calls.waitingSince} + make_interval(secs => coalesce(${profiles.queueTimeoutSeconds}, 3600)) <= ${now}`,
      ),
    )
    .orderBy(asc(calls.waitingSince));
  return rows.map((r) => r.call);
}

/** Accounts that have web leads waiting in the queue. */
export async function accountsWithQueue(db: Db): Promise<number[]> {
  const rows = await db
    .selectDistinct({ accountId: calls.accountId })
    .from(calls)
    .where(and(eq(calls.status, QUEUED), isNotNull(calls.waitingSince)));
  return rows.map((r) => r.accountId);
}

/**
 * Accounts with web leads waiting in the queue and an agent whose wrap-up ended in
 * (`after`, `upTo`]: they may take a lead now, whichever instance started the wrap-up (a
 * durable wrap-up timer: `RingSweeper`).
 */
export async function accountsWithWrapUpsEnded(db: Db, after: Date, upTo: Date): Promise<number[]> {
  const rows = await queryRows<{ account_id: number }>(
    db,
    sql`select distinct freed.account_id from users freed
        where freed.wrap_up_until > ${after.toISOString()}::timestamptz
          and freed.wrap_up_until <= ${upTo.toISOString()}::timestamptz
          and exists (select 1 from calls waiting
            where waiting.account_id = freed.account_id and waiting.status = ${QUEUED}
              and waiting.waiting_since is not null)`,
  );
  return rows.map((row) => row.account_id);
}
