/**
 * The agent lists of the transfer and conference panels, and the availability rules of the
 * spec (section 6): transfer targets are not on a call and available (and, if app-only, online
 * in the app); conference targets are available and online in the app or on mobile.
 */
import {
  and,
  asc,
  count,
  eq,
  ilike,
  inArray,
  isNull,
  lte,
  ne,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { AgentRow, AgentStatus, PageMeta, PresenceStatus, TeamRow } from '@leadline/contracts';
import type { Db } from '../db/database';
import { teamMembers, teams, users } from '../db/schema';
import { LIVE_CALL_STATUSES, OPEN_CALL_STATUSES, statusListSql } from '../calls/call-status';

/** Agents per page of the paged lists (the spec leaves it open). */
export const AGENT_PAGE_SIZE = 10;

/** `('ringing', 'in-progress')`: a live call's statuses, literal (the partial indexes match). */
const LIVE_SQL = sql.raw(statusListSql(LIVE_CALL_STATUSES));
/** Every status of a call that has not ended, literal. */
const OPEN_SQL = sql.raw(statusListSql(OPEN_CALL_STATUSES));

/**
 * The live call a user is on (answered, not left), as a scalar subquery over the user id
 * column: an index lookup on the rare open participations (call_users_open_idx).
 */
export function onCallOf(userIdRef: SQL): SQL<number | null> {
  // Explicit aliases: drizzle leaves columns unqualified in single-source selects.
  return sql<number | null>`(
    select open_cu.call_id from call_users open_cu
    inner join calls open_c on open_c.id = open_cu.call_id
    where open_cu.user_id = ${userIdRef}
      and open_cu.outcome = 'accepted' and open_cu.left_at is null
      and open_c.status in ${LIVE_SQL}
    order by open_cu.id desc limit 1)`;
}

/** `"users"."id"`, qualified, for subqueries. */
const USERS_ID = sql.raw('"users"."id"');

/** The users on a live call: few rows, read once per query (a hashed semi-join). */
const USERS_ON_CALLS = sql`(
  select open_cu.user_id from call_users open_cu
  inner join calls open_c on open_c.id = open_cu.call_id
  where open_cu.outcome = 'accepted' and open_cu.left_at is null
    and open_c.status in ${LIVE_SQL})`;

/** The users being rung for a live call. */
const USERS_RINGING = sql`(
  select ring_cu.user_id from call_users ring_cu
  inner join calls ring_c on ring_c.id = ring_cu.call_id
  where ring_cu.outcome = 'ringing' and ring_c.status in ${OPEN_SQL})`;

const online = () => or(eq(users.isOnlineApp, true), eq(users.isMobile, true))!;
const onCall = () => sql`${USERS_ID} in ${USERS_ON_CALLS}`;
/** Neither on a call nor being rung for one. */
const free = () =>
  sql`${USERS_ID} not in ${USERS_ON_CALLS} and ${USERS_ID} not in ${USERS_RINGING}`;
const notWrappingUp = (now: Date) => or(isNull(users.wrapUpUntil), lte(users.wrapUpUntil, now))!;

/** The filter of one agent status. */
function statusFilter(status: AgentStatus, now: Date): SQL | undefined {
  switch (status) {
    case 'all':
      return undefined;
    case 'online':
      return online();
    case 'on_call':
      return onCall();
    case 'available':
      return and(eq(users.isAvailable, true), online(), free(), notWrappingUp(now));
  }
}

/**
 * Where an agent is (the presence rule): offline without a registered device, else on a call,
 * else wrapping up, else away or available as they chose.
 */
export function presenceStatus(row: {
  isAvailable: boolean;
  isOnlineApp: boolean;
  isMobile: boolean;
  wrapUpUntil: Date | null;
  onCallId: number | null;
}): PresenceStatus {
  if (!row.isOnlineApp && !row.isMobile) return 'offline';
  if (row.onCallId !== null) return 'on_call';
  if (row.wrapUpUntil !== null) return 'wrap_up';
  return row.isAvailable ? 'available' : 'away';
}

/** The page of active agents of the account (the requesting user left out), by name. */
export async function pageAgents(
  db: Db,
  options: {
    accountId: number;
    excludeUserId: number;
    status: AgentStatus;
    search?: string | undefined;
    teamId?: number | undefined;
    page: number;
    now?: Date;
  },
): Promise<{ data: AgentRow[]; meta: PageMeta }> {
  const now = options.now ?? new Date();
  const where = and(
    eq(users.accountId, options.accountId),
    ne(users.id, options.excludeUserId),
    // A user an admin deactivated is nobody to transfer to or call in (issue 37).
    eq(users.active, true),
    statusFilter(options.status, now),
    options.search ? ilike(users.fullName, `%${escapeLike(options.search)}%`) : undefined,
    options.teamId
      ? inArray(
          users.id,
          db
            .select({ id: teamMembers.userId })
            .from(teamMembers)
            .where(eq(teamMembers.teamId, options.teamId)),
        )
      : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(users).where(where);
  const lastPage = Math.max(1, Math.ceil(total / AGENT_PAGE_SIZE));
  // Page first, then look up the live call of the page's rows only.
  const page = db
    .select({
      id: users.id,
      fullName: users.fullName,
      isAvailable: users.isAvailable,
      isAppOnly: users.isAppOnly,
      isOnlineApp: users.isOnlineApp,
      isMobile: users.isMobile,
      wrapUpUntil: users.wrapUpUntil,
    })
    .from(users)
    .where(where)
    .orderBy(asc(users.fullName), asc(users.id))
    .limit(AGENT_PAGE_SIZE)
    .offset((options.page - 1) * AGENT_PAGE_SIZE)
    .as('page');
  const rows = await db
    .select({
      id: page.id,
      full_name: page.fullName,
      on_call_id: onCallOf(sql.raw('"page"."id"')),
      is_available: page.isAvailable,
      is_app_only: page.isAppOnly,
      is_online_app: page.isOnlineApp,
      is_mobile: page.isMobile,
      wrap_up_until: page.wrapUpUntil,
    })
    .from(page)
    .orderBy(asc(page.fullName), asc(page.id));
  return {
    data: rows.map(({ wrap_up_until: wrapUpUntil, ...row }) => ({
      ...row,
      status: presenceStatus({
        isAvailable: row.is_available,
        isOnlineApp: row.is_online_app,
        isMobile: row.is_mobile,
        wrapUpUntil: wrapUpUntil && wrapUpUntil > now ? wrapUpUntil : null,
        onCallId: row.on_call_id,
      }),
    })),
    meta: { current_page: options.page, last_page: lastPage, per_page: AGENT_PAGE_SIZE, total },
  };
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The user's live call id (the spec's `on_call_id`), or null. */
export async function onCallIdOf(
  db: Db,
  accountId: number,
  userId: number,
): Promise<number | null> {
  const [row] = await db
    .select({ callId: onCallOf(USERS_ID) })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, userId)));
  return row?.callId ?? null;
}

/** An agent with what the availability rules look at. */
export interface AgentState {
  id: number;
  isAvailable: boolean;
  isAppOnly: boolean;
  isOnlineApp: boolean;
  isMobile: boolean;
  onCallId: number | null;
  /** Being rung for a call now. */
  ringing: boolean;
  /** Wrapping up after a call now. */
  wrappingUp: boolean;
  /** Their Auto Accept setting: a lead, a transfer or a conference they are rung for is answered. */
  autoaccept: boolean;
}

/** The availability facts of one active user of the account, or null if there is none. */
export async function agentState(
  db: Db,
  accountId: number,
  userId: number,
  now: Date = new Date(),
): Promise<AgentState | null> {
  const [user] = await db
    .select({
      id: users.id,
      isAvailable: users.isAvailable,
      isAppOnly: users.isAppOnly,
      isOnlineApp: users.isOnlineApp,
      isMobile: users.isMobile,
      wrapUpUntil: users.wrapUpUntil,
      autoaccept: users.autoaccept,
      onCallId: onCallOf(USERS_ID),
      ringing: sql<boolean>`${USERS_ID} in ${USERS_RINGING}`,
    })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, userId), eq(users.active, true)));
  if (!user) return null;
  const { wrapUpUntil, ...rest } = user;
  return { ...rest, wrappingUp: wrapUpUntil !== null && wrapUpUntil > now };
}

/** Not on a call, not rung for one, not wrapping up, and willing (available). */
const isFree = (a: AgentState): boolean =>
  a.onCallId === null && !a.ringing && !a.wrappingUp && a.isAvailable;

/**
 * Spec section 6: a transfer target is not on a call, available, and online (in the app if
 * app-only). Available also means not rung for another call and not wrapping up.
 */
export const canTakeTransfer = (a: AgentState): boolean =>
  isFree(a) && (a.isAppOnly ? a.isOnlineApp : a.isOnlineApp || a.isMobile);

/** Spec section 6: a conference target is available and online in the app or on mobile. */
export const canJoinConference = (a: AgentState): boolean =>
  isFree(a) && (a.isOnlineApp || a.isMobile);

/** SQL of `canTakeTransfer` over the users table. */
const transferable = (now: Date) =>
  and(
    eq(users.active, true),
    eq(users.isAvailable, true),
    free(),
    notWrappingUp(now),
    or(eq(users.isOnlineApp, true), and(eq(users.isAppOnly, false), eq(users.isMobile, true))),
  );

/** The account's teams, each with whether a member can take a transfer now. */
export async function listTeams(
  db: Db,
  accountId: number,
  now: Date = new Date(),
): Promise<TeamRow[]> {
  const available = db
    .selectDistinct({ teamId: teamMembers.teamId })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(users.accountId, accountId), transferable(now)));
  const availableIds = new Set((await available).map((r) => r.teamId));
  const rows = await db
    .select({ id: teams.id, name: teams.name })
    .from(teams)
    .where(eq(teams.accountId, accountId))
    .orderBy(asc(teams.name), asc(teams.id));
  return rows.map((t) => ({ ...t, is_available: availableIds.has(t.id) }));
}

/** The team of the account, or null. */
export async function findTeam(db: Db, accountId: number, teamId: number) {
  const [team] = await db
    .select()
    .from(teams)
    .where(and(eq(teams.accountId, accountId), eq(teams.id, teamId)));
  return team ?? null;
}
