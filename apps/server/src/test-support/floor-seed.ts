/**
 * Seeds a busy day on the floor for the floor's benchmark and scale test (issue 39): `agents`
 * agents in every status a floor shows (a third on a call, some ringing, wrapping up, available,
 * away, offline), `calls` offered calls finished between the account's midnight and `now`
 * (answered, missed and abandoned, with talk and wrap-up), each answered one with its agent's
 * call-user row, and `queued` leads waiting; all in set-based SQL.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';
import { joinTeamsInTurn } from './scale-seed';

/** What the seed made. */
export interface FloorSeed {
  /** The first seeded agent's id (ids are consecutive). */
  firstUserId: number;
  /** How many calls of the seed are in the day (finished, live and queued). */
  callsToday: number;
}

/**
 * Seeds account `accountId` with a day of `calls` finished calls spread evenly from `dayStart`
 * to a minute before `now`, `agents` agents and `queued` waiting leads.
 */
export async function seedFloorDay(
  db: Db,
  options: {
    accountId: number;
    agents: number;
    calls: number;
    queued: number;
    dayStart: Date;
    now: Date;
  },
): Promise<FloorSeed> {
  const { accountId, agents, calls, queued } = options;
  const now = options.now.toISOString();
  const start = options.dayStart.toISOString();
  // The seconds between the calls' arrivals, so that the last arrives a minute before `now`.
  const spread = Math.max(0, (options.now.getTime() - options.dayStart.getTime()) / 1000 - 60);
  const [next] = await queryRows<{ id: number }>(
    db,
    sql`select coalesce(max(id), 0) + 1 as id from users`,
  );
  const firstUserId = Number(next!.id);
  // Agent g's status by g % 10: 0–2 on a call, 3 ringing, 4 wrapping up, 5–6 available, 7 away,
  // 8–9 offline.
  await db.execute(sql`
    insert into users (account_id, email, password_hash, full_name, role, is_online_app,
      is_available, presence_changed_at, idle_since, wrap_up_until)
    select ${accountId}, 'floor' || g || '@example.com', 'scrypt$1$1$1$x$x',
           'Floor Agent ' || lpad(g::text, 4, '0'), 'agent', g % 10 < 8, g % 10 <> 7,
           ${now}::timestamptz - ((g % 600) || ' seconds')::interval,
           ${now}::timestamptz - ((g % 900) || ' seconds')::interval,
           case when g % 10 = 4 then ${now}::timestamptz + interval '40 seconds' end
    from generate_series(0, ${agents - 1}) g`);
  await joinTeamsInTurn(db, accountId, firstUserId);
  // The day's finished calls: g % 20 < 16 answered (after g % 40 s; talk 60–359 s; 30 s of
  // wrap-up), 16–17 missed, 18–19 abandoned; web and inbound in turn; round-robin over agents.
  await db.execute(sql`
    insert into calls (account_id, sid, type, direction, status, reason, source, phone_number,
      profile_id, user_id, created_at, answered_at, ended_at, seconds, wrap_up_ended_at)
    select ${accountId}, 'CAfloor' || g, 'lead', 'inbound',
           case when g % 20 < 16 then 'completed' else 'no-answer' end,
           case when g % 20 in (16, 17) then 'no-agent-answered'
                when g % 20 in (18, 19) then 'caller-hung-up' end,
           case when g % 2 = 0 then 'web' else 'inbound' end,
           '+1555020' || lpad((g % 10000)::text, 4, '0'),
           (select id from profiles where account_id = ${accountId} order by id limit 1),
           case when g % 20 < 16 then ${firstUserId} + (g % ${agents}) end,
           arrived,
           case when g % 20 < 16 then arrived + ((g % 40) || ' seconds')::interval end,
           arrived + ((g % 40) || ' seconds')::interval
             + case when g % 20 < 16 then ((60 + g % 300) || ' seconds')::interval else interval '0 seconds' end,
           case when g % 20 < 16 then 60 + g % 300 else 0 end,
           case when g % 20 < 16 then arrived + ((g % 40) || ' seconds')::interval
             + ((90 + g % 300) || ' seconds')::interval end
    from generate_series(0, ${calls - 1}) g,
      lateral (select ${start}::timestamptz
        + make_interval(secs => g * ${spread / Math.max(1, calls)}::float8) as arrived) a`);
  await db.execute(sql`
    insert into call_users (call_id, user_id, type, outcome, answered_at, left_at, created_at)
    select id, user_id, 'lead', 'accepted', answered_at, ended_at, created_at
    from calls where sid like 'CAfloor%' and user_id is not null`);
  // The live ones: agents g % 10 < 3 on a call, g % 10 = 3 being rung, 4 wrapping up after one.
  await db.execute(sql`
    insert into calls (account_id, sid, type, direction, status, source, phone_number, user_id,
      created_at, answered_at, ended_at, seconds, wrap_up_ended_at)
    select ${accountId}, 'CAfloorlive' || u.id, 'lead', 'inbound',
           case when s < 3 then 'in-progress' when s = 3 then 'ringing' else 'completed' end,
           'web', '+15550200042', u.id,
           ${now}::timestamptz - interval '5 minutes',
           case when s <> 3 then ${now}::timestamptz - interval '290 seconds' end,
           case when s = 4 then ${now}::timestamptz - interval '20 seconds' end,
           case when s = 4 then 270 else 0 end,
           case when s = 4 then ${now}::timestamptz + interval '40 seconds' end
    from users u, lateral (select (u.id - ${firstUserId}) % 10 as s) k
    where u.id >= ${firstUserId} and s < 5`);
  await db.execute(sql`
    insert into call_users (call_id, user_id, type, outcome, answered_at, left_at, created_at)
    select c.id, c.user_id, 'lead', case when c.status = 'ringing' then 'ringing' else 'accepted' end,
           c.answered_at, c.ended_at, c.created_at
    from calls c where c.sid like 'CAfloorlive%'`);
  await db.execute(sql`
    update users u set wrap_up_call_id = c.id from calls c
    where c.sid = 'CAfloorlive' || u.id and c.status = 'completed'`);
  // The queue: leads waiting 1 s to `queued` s.
  await db.execute(sql`
    insert into calls (account_id, sid, type, direction, status, reason, source, phone_number,
      profile_id, created_at, waiting_since)
    select ${accountId}, 'CAfloorqueued' || g, 'lead', 'inbound', 'queued', 'all-agents-busy',
           'web', '+15550300' || lpad(g::text, 3, '0'),
           (select id from profiles where account_id = ${accountId} order by id limit 1),
           ${now}::timestamptz - (g || ' seconds')::interval,
           ${now}::timestamptz - (g || ' seconds')::interval
    from generate_series(1, ${queued}) g`);
  await db.execute(sql`analyze`);
  const live = Math.floor(agents / 10) * 5 + Math.min(5, agents % 10);
  return { firstUserId, callsToday: calls + live + queued };
}
