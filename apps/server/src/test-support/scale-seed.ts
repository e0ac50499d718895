/**
 * Seeds a large account for scale tests and benchmarks: `users` agents (every 10th online,
 * every 50th online and on a live call, spread over the account's teams) and `calls` finished calls
 * spread over them (each with its call-user row), all in set-based SQL.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';

/** What the seed made. */
export interface ScaleSeed {
  accountId: number;
  users: number;
  calls: number;
  /** The first seeded user's id (ids are consecutive). */
  firstUserId: number;
}

/** Seeds the demo account (id 1, already seeded) with many users and calls. */
export async function seedScale(
  db: Db,
  options: { users: number; calls: number },
): Promise<ScaleSeed> {
  const accountId = 1;
  const [next] = await queryRows<{ id: number }>(
    db,
    sql`select coalesce(max(id), 0) + 1 as id from users`,
  );
  const firstUserId = Number(next!.id);
  await db.execute(sql`
    insert into users (account_id, email, password_hash, full_name, permissions, is_online_app, last_call_at)
    select ${accountId}, 'scale' || g || '@example.com', 'scrypt$1$1$1$x$x',
           'Agent ' || lpad(g::text, 6, '0'), '["app-sms"]'::jsonb, g % 10 = 0,
           now() - (g || ' minutes')::interval
    from generate_series(1, ${options.users}) g`);
  await joinTeamsInTurn(db, accountId, firstUserId);
  // Finished calls, newest first by id, spread round-robin over the seeded users.
  await db.execute(sql`
    insert into calls (account_id, sid, type, direction, status, phone_number, user_id, answered_at, ended_at, seconds, created_at)
    select ${accountId}, 'CAscale' || g, 'lead', 'outbound',
           (array['completed','completed','completed','missed','busy','offline','no-answer'])[1 + g % 7],
           '+1555010' || lpad((g % 10000)::text, 4, '0'),
           ${firstUserId} + (g % ${options.users}),
           now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval + interval '1 minute',
           case when g % 7 < 3 then 60 + g % 300 else 0 end,
           now() - (g || ' seconds')::interval
    from generate_series(1, ${options.calls}) g`);
  await db.execute(sql`
    insert into call_users (call_id, user_id, type, outcome, answered_at, left_at)
    select id, user_id, 'lead', case when status = 'completed' then 'accepted' else 'missed' end, answered_at, ended_at
    from calls where sid like 'CAscale%'`);
  // Every 50th seeded user (all of them online) is on a live call now.
  await db.execute(sql`
    insert into calls (account_id, sid, type, direction, status, phone_number, user_id, answered_at, created_at)
    select ${accountId}, 'CAlive' || u.id, 'lead', 'outbound', 'in-progress', '+15550100042', u.id, now(), now()
    from users u where u.id >= ${firstUserId} and (u.id - ${firstUserId} + 1) % 50 = 0`);
  await db.execute(sql`
    insert into call_users (call_id, user_id, type, outcome, answered_at)
    select id, user_id, 'lead', 'accepted', now() from calls where sid like 'CAlive%'`);
  await db.execute(sql`analyze`);
  return { accountId, users: options.users, calls: options.calls, firstUserId };
}

/** Puts the account's users from `firstUserId` on in its first two teams, in turn. */
export async function joinTeamsInTurn(db: Db, accountId: number, firstUserId: number) {
  await db.execute(sql`
    insert into team_members (team_id, user_id)
    select t.id, u.id from users u
    join lateral (select id from teams where account_id = ${accountId} order by id offset (u.id % 2) limit 1) t on true
    where u.id >= ${firstUserId}`);
}
