/**
 * The Reports screen's summaries (issue 39): over the days `from` to `to` of the account's time
 * zone (both included), the offered calls' figures by day, team and profile (the floor's
 * definitions, `floor/call-figures.ts`), what each agent handled, and the calls by disposition
 * and by tag. One statement per summary, every figure worked out in SQL.
 */
import { sql } from 'drizzle-orm';
import type { ReportSummary } from '@leadline/contracts';
import { queryRows, type Db } from '../db/database';
import {
  accountRange,
  figureColumns,
  figuresOf,
  numberOrNull,
  OFFERED_CALL as OFFERED,
} from '../floor/call-figures';

/**
 * The summaries of the account's calls created on the days `from` to `to` of its zone, as of
 * `now`, or null for an unknown account.
 */
export async function reportSummary(
  db: Db,
  accountId: number,
  range: { from: string; to: string },
  now: Date,
): Promise<ReportSummary | null> {
  const account = await accountRange(db, accountId, range.from, range.to);
  if (!account) return null;
  const at = now.toISOString();
  const zone = account.timeZone;
  const figures = figureColumns(account.serviceLevelSeconds, at);
  const inRange = sql`c.account_id = ${accountId}
    and c.created_at >= ${account.start.toISOString()}::timestamptz
    and c.created_at < ${account.end.toISOString()}::timestamptz`;

  const days = await queryRows<Record<string, unknown>>(
    db,
    sql`select to_char(c.created_at at time zone ${zone}, 'YYYY-MM-DD') as day, ${figures}
        from calls c where ${inRange}
        group by 1 order by 1`,
  );
  const teams = await queryRows<Record<string, unknown>>(
    db,
    sql`select t.id, t.name, ${figures}
        from calls c join profiles p on p.id = c.profile_id join teams t on t.id = p.team_id
        where ${inRange} and ${OFFERED}
        group by t.id, t.name order by t.name, t.id`,
  );
  const profiles = await queryRows<Record<string, unknown>>(
    db,
    sql`select p.id, p.name, ${figures}
        from calls c join profiles p on p.id = c.profile_id
        where ${inRange} and ${OFFERED}
        group by p.id, p.name order by p.name, p.id`,
  );
  const agents = await queryRows<{
    id: number;
    name: string;
    calls: number;
    answered: number;
    talk_seconds: number;
    aht: unknown;
  }>(
    db,
    sql`select u.id, u.full_name as name, count(*)::int as calls,
          count(c.answered_at)::int as answered,
          coalesce(sum(c.seconds), 0)::int as talk_seconds,
          avg(c.seconds + coalesce(extract(epoch from c.wrap_up_ended_at - c.ended_at), 0))
            filter (where c.answered_at is not null and c.ended_at is not null
              and (c.wrap_up_ended_at is null or c.wrap_up_ended_at <= ${at}::timestamptz)) as aht
        from calls c join users u on u.id = c.user_id
        where ${inRange}
        group by u.id, u.full_name order by u.full_name, u.id`,
  );
  const dispositions = await queryRows<{ disposition: string; calls: number }>(
    db,
    sql`select c.disposition, count(*)::int as calls
        from calls c where ${inRange} and c.disposition is not null
        group by c.disposition order by count(*) desc, c.disposition`,
  );
  const tags = await queryRows<{ tag: string; calls: number }>(
    db,
    sql`select coalesce((select g.name from tags g
             where g.profile_id = c.profile_id and g.key = c.stage_key limit 1), c.stage_key) as tag,
          count(*)::int as calls
        from calls c where ${inRange} and c.stage_key is not null
        group by 1 order by count(*) desc, 1`,
  );
  return {
    time_zone: zone,
    from: range.from,
    to: range.to,
    service_level_seconds: account.serviceLevelSeconds,
    by_day: days.map((row) => ({ day: String(row.day), ...figuresOf(row) })),
    by_team: teams.map((row) => ({
      id: Number(row.id),
      name: String(row.name),
      ...figuresOf(row),
    })),
    by_profile: profiles.map((row) => ({
      id: Number(row.id),
      name: String(row.name),
      ...figuresOf(row),
    })),
    by_agent: agents.map((row) => ({
      id: row.id,
      name: row.name,
      calls: row.calls,
      answered: row.answered,
      talk_seconds: row.talk_seconds,
      average_handle_seconds: numberOrNull(row.aht),
    })),
    by_disposition: dispositions.map((row) => ({
      disposition: row.disposition,
      calls: row.calls,
    })),
    by_tag: tags.map((row) => ({ tag: row.tag, calls: row.calls })),
  };
}
