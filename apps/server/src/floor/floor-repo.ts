/**
 * What a supervisor watches all day (issue 39), read from the database as of `now`: the queue,
 * the agents with their status and how long they have been in it, today's figures and today's
 * 15-minute intervals, "today" being the account's day in its time zone (`accounts.time_zone`).
 *
 * The figures are the reports' (`call-figures.ts`), kept as calls change (`floor-counts.ts`).
 */
import { sql } from 'drizzle-orm';
import { formatPhone } from '@leadline/contracts';
import type {
  Floor,
  FloorAgent,
  FloorInterval,
  FloorKpis,
  FloorQueueEntry,
  FloorStatus,
} from '@leadline/contracts';
import { queryRows, type Db } from '../db/database';
import { countedFigures } from './floor-counts';

/** The length of one interval (s). */
export const FLOOR_INTERVAL_SECONDS = 15 * 60;

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

/** The account's zone, threshold, and today's bounds there. */
async function accountDay(db: Db, accountId: number, now: Date) {
  const [row] = await queryRows<{
    time_zone: string;
    service_level_seconds: number;
    day: string;
    day_start: Date | string;
    day_end: Date | string;
  }>(
    db,
    sql`select a.time_zone, a.service_level_seconds,
          to_char(d.local_day, 'YYYY-MM-DD') as day,
          d.local_day at time zone a.time_zone as day_start,
          (d.local_day + interval '1 day') at time zone a.time_zone as day_end
        from accounts a,
          lateral (select date_trunc('day', ${now.toISOString()}::timestamptz at time zone a.time_zone) as local_day) d
        where a.id = ${accountId}`,
  );
  if (!row) return null;
  return {
    timeZone: row.time_zone,
    thresholdSeconds: row.service_level_seconds,
    day: row.day,
    start: new Date(row.day_start),
    end: new Date(row.day_end),
  };
}

/**
 * The leads waiting in the account's queue, longest wait first: queued with a wait (the
 * router's queue, `calls_queue_idx`; an agent's own call being placed is queued without one).
 */
export async function floorQueue(db: Db, accountId: number): Promise<FloorQueueEntry[]> {
  const rows = await queryRows<{
    call_id: number;
    fname: string | null;
    lname: string | null;
    phone: string | null;
    profile_id: number | null;
    profile_name: string | null;
    team_id: number | null;
    team_name: string | null;
    waiting_since: Date | string;
  }>(
    db,
    sql`select c.id as call_id, l.fname, l.lname, coalesce(l.phone_number, c.phone_number) as phone,
          p.id as profile_id, p.name as profile_name, t.id as team_id, t.name as team_name,
          c.waiting_since
        from calls c
          left join leads l on l.id = c.lead_id
          left join profiles p on p.id = c.profile_id
          left join teams t on t.id = p.team_id
        where c.account_id = ${accountId} and c.status = 'queued' and c.waiting_since is not null
        order by c.waiting_since, c.id`,
  );
  return rows.map((row) => ({
    call_id: row.call_id,
    label: leadLabel(row.fname, row.lname, row.phone) ?? '',
    profile: row.profile_id === null ? null : { id: row.profile_id, name: row.profile_name ?? '' },
    team: row.team_id === null ? null : { id: row.team_id, name: row.team_name ?? '' },
    waiting_since: iso(row.waiting_since)!,
  }));
}

/** A lead's label as the console shows it (`toLeadResource`): its name, else its number. */
function leadLabel(fname: string | null, lname: string | null, phone: string | null) {
  const name = [fname, lname].filter(Boolean).join(' ');
  return name || (phone === null ? null : formatPhone(phone));
}

/** The account's active users, by name, with their status as of `now`. */
export async function floorAgents(db: Db, accountId: number, now: Date): Promise<FloorAgent[]> {
  const rows = await queryRows<{
    id: number;
    full_name: string;
    role: string;
    online: boolean;
    is_available: boolean;
    wrap_up_until: Date | string | null;
    idle_since: Date | string | null;
    presence_changed_at: Date | string | null;
    ring_call_id: number | null;
    ring_at: Date | string | null;
    open_call_id: number | null;
    open_answered_at: Date | string | null;
    wrap_call_ended_at: Date | string | null;
    fname: string | null;
    lname: string | null;
    phone: string | null;
  }>(
    db,
    sql`select u.id, u.full_name, u.role, (u.is_online_app or u.is_mobile) as online,
          u.is_available, u.wrap_up_until, u.idle_since, u.presence_changed_at,
          ring.call_id as ring_call_id, ring.created_at as ring_at,
          open.call_id as open_call_id, open.answered_at as open_answered_at,
          wrap.ended_at as wrap_call_ended_at,
          l.fname, l.lname, coalesce(l.phone_number, c.phone_number) as phone
        from users u
          left join lateral (
            select cu.call_id, cu.created_at from call_users cu
            where cu.user_id = u.id and cu.outcome = 'ringing'
            order by cu.created_at desc limit 1) ring on true
          left join lateral (
            select cu.call_id, cu.answered_at from call_users cu
            where cu.user_id = u.id and cu.outcome = 'accepted' and cu.left_at is null
            order by cu.answered_at desc nulls last limit 1) open on true
          left join calls wrap on wrap.id = u.wrap_up_call_id
          left join calls c on c.id = coalesce(open.call_id, ring.call_id)
          left join leads l on l.id = c.lead_id
        where u.account_id = ${accountId} and u.active
        order by u.full_name, u.id`,
  );
  return rows.map((row) => {
    const wrapUntil = row.wrap_up_until === null ? null : new Date(row.wrap_up_until);
    const wrapping = wrapUntil !== null && wrapUntil > now;
    const label = leadLabel(row.fname, row.lname, row.phone);
    let status: FloorStatus;
    let since: Date | string | null;
    let call: FloorAgent['call'] = null;
    if (!row.online) {
      status = 'offline';
      since = row.presence_changed_at;
    } else if (row.open_call_id !== null) {
      status = 'on_call';
      since = row.open_answered_at;
      call = { id: row.open_call_id, lead_label: label, answered_at: iso(row.open_answered_at) };
    } else if (row.ring_call_id !== null) {
      status = 'ringing';
      since = row.ring_at;
      call = { id: row.ring_call_id, lead_label: label, answered_at: null };
    } else if (wrapping) {
      status = 'wrap_up';
      since = row.wrap_call_ended_at ?? row.idle_since;
    } else {
      status = row.is_available ? 'available' : 'away';
      // The latest of: the choice or the device changing, the last call ending, its wrap-up
      // running out (when nobody pressed Done).
      since = latest([row.presence_changed_at, row.idle_since, wrapUntil]);
    }
    return {
      id: row.id,
      full_name: row.full_name,
      role: row.role,
      status,
      since: iso(since),
      call,
    };
  });
}

function latest(values: Array<Date | string | null>): Date | null {
  let best: Date | null = null;
  for (const value of values) {
    if (value === null) continue;
    const date = new Date(value);
    if (best === null || date > best) best = date;
  }
  return best;
}

/**
 * Today's figures and intervals of the account as of `now` (see the module's header), or null
 * for an unknown account.
 */
export async function floorFigures(
  db: Db,
  accountId: number,
  now: Date,
): Promise<Pick<Floor, 'time_zone' | 'date' | 'kpis' | 'intervals'> | null> {
  const day = await accountDay(db, accountId, now);
  if (!day) return null;
  const threshold = day.thresholdSeconds;
  const counted = await countedFigures(db, accountId, {
    start: day.start,
    end: day.end,
    at: now,
    thresholdSeconds: threshold,
  });
  const { talk_seconds: _talk, ...today } = counted.whole;
  const kpis: FloorKpis = { ...today, service_level_seconds: threshold };
  // Every interval of the day (92 or 100 on a day the clocks change), up to the current one.
  const intervalCount = Math.round(
    (day.end.getTime() - day.start.getTime()) / (FLOOR_INTERVAL_SECONDS * 1000),
  );
  const current = Math.floor(
    (now.getTime() - day.start.getTime()) / (FLOOR_INTERVAL_SECONDS * 1000),
  );
  const intervals: FloorInterval[] = [];
  for (let i = 0; i < intervalCount && i <= current; i++) {
    const start = day.start.getTime() + i * FLOOR_INTERVAL_SECONDS * 1000;
    const counts = counted.byBucket.get(start);
    intervals.push({
      start: new Date(start).toISOString(),
      offered: counts?.offered ?? 0,
      answered: counts?.answered ?? 0,
      missed: counts?.missed ?? 0,
      abandoned: counts?.abandoned ?? 0,
      service_level: counts?.service_level ?? null,
    });
  }
  return { time_zone: day.timeZone, date: day.day, kpis, intervals };
}

/** The whole floor of the account as of `now`, or null for an unknown account. */
export async function readFloor(db: Db, accountId: number, now: Date): Promise<Floor | null> {
  const figures = await floorFigures(db, accountId, now);
  if (!figures) return null;
  const queue = await floorQueue(db, accountId);
  const agents = await floorAgents(db, accountId, now);
  return { ...figures, queue, agents };
}
