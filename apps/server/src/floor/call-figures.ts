/**
 * The figures of a group of calls, one definition for the floor and the reports (issue 39),
 * worked out in SQL over the calls `c` of the group: the *offered* ones (routed to agents: web
 * leads and inbound calls, `source` web or inbound) are
 * - *answered*: an agent took it (`answered_at`);
 * - *abandoned*: it ended unanswered because the caller gave up while it was queued or ringing
 *   (reason `caller-hung-up`);
 * - *missed*: it ended unanswered for any other reason (nobody took it, outside hours, …); a
 *   call still queued or ringing is offered but none of these yet;
 * - *answer rate*: answered ÷ offered;
 * - *average speed of answer*: answered_at − created_at, averaged over the answered calls;
 * - *average handle time*: talk (`seconds`) plus the agent's wrap-up (`wrap_up_ended_at` −
 *   `ended_at`, none when the call has none), over answered calls whose call and wrap-up are over;
 * - *service level*: the calls answered within the account's threshold
 *   (`accounts.service_level_seconds`) ÷ the offered calls whose fate against it is known:
 *   answered, ended, or waiting longer than the threshold already;
 * - *talk seconds*: the offered calls' talk.
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';

/** The SQL condition of an offered call (`c`). */
export const OFFERED_CALL = sql.raw(`c.source in ('web', 'inbound')`);

/** The figures' select items over the calls `c` of a group, as of `at` (ISO). */
export function figureColumns(thresholdSeconds: number, at: string): SQL {
  return sql`count(*) filter (where ${OFFERED_CALL})::int as offered,
    count(*) filter (where ${OFFERED_CALL} and c.answered_at is not null)::int as answered,
    count(*) filter (where ${OFFERED_CALL} and c.answered_at is null and c.ended_at is not null
      and c.reason is distinct from 'caller-hung-up')::int as missed,
    count(*) filter (where ${OFFERED_CALL} and c.answered_at is null and c.ended_at is not null
      and c.reason = 'caller-hung-up')::int as abandoned,
    count(*) filter (where ${OFFERED_CALL} and c.answered_at is not null
      and c.answered_at - c.created_at <= make_interval(secs => ${thresholdSeconds}))::int as sl_met,
    count(*) filter (where ${OFFERED_CALL} and (c.answered_at is not null or c.ended_at is not null
      or ${at}::timestamptz - c.created_at > make_interval(secs => ${thresholdSeconds})))::int as sl_known,
    avg(extract(epoch from c.answered_at - c.created_at))
      filter (where ${OFFERED_CALL} and c.answered_at is not null) as asa,
    avg(c.seconds + coalesce(extract(epoch from c.wrap_up_ended_at - c.ended_at), 0))
      filter (where ${OFFERED_CALL} and c.answered_at is not null and c.ended_at is not null
        and (c.wrap_up_ended_at is null or c.wrap_up_ended_at <= ${at}::timestamptz)) as aht,
    coalesce(sum(c.seconds) filter (where ${OFFERED_CALL}), 0)::int as talk_seconds`;
}

/** The figures of one group. Shares are 0…1, averages seconds; null with nothing to count. */
export interface CallFigures {
  offered: number;
  answered: number;
  missed: number;
  abandoned: number;
  answer_rate: number | null;
  average_speed_of_answer_seconds: number | null;
  average_handle_seconds: number | null;
  service_level: number | null;
  talk_seconds: number;
}

/** A share, or null without a denominator. */
export const share = (part: number, whole: number): number | null =>
  whole > 0 ? part / whole : null;

/** A number, or null for SQL's null. */
export const numberOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

/** A row's figures (the columns of {@link figureColumns}). */
export function figuresOf(row: Record<string, unknown>): CallFigures {
  const offered = Number(row.offered ?? 0);
  const answered = Number(row.answered ?? 0);
  return {
    offered,
    answered,
    missed: Number(row.missed ?? 0),
    abandoned: Number(row.abandoned ?? 0),
    answer_rate: share(answered, offered),
    average_speed_of_answer_seconds: numberOrNull(row.asa),
    average_handle_seconds: numberOrNull(row.aht),
    service_level: share(Number(row.sl_met ?? 0), Number(row.sl_known ?? 0)),
    talk_seconds: Number(row.talk_seconds ?? 0),
  };
}

/** An account's days `from` to `to` (both included) in its time zone, and its threshold. */
export interface AccountRange {
  timeZone: string;
  serviceLevelSeconds: number;
  /** The first day's midnight there. */
  start: Date;
  /** The midnight after the last day there. */
  end: Date;
}

/** The account's days `from` to `to` (`YYYY-MM-DD`), or null for an unknown account. */
export async function accountRange(
  db: Db,
  accountId: number,
  from: string,
  to: string,
): Promise<AccountRange | null> {
  const [row] = await queryRows<{
    time_zone: string;
    service_level_seconds: number;
    start: Date | string;
    end: Date | string;
  }>(
    db,
    sql`select time_zone, service_level_seconds,
          (${from}::date)::timestamp at time zone time_zone as start,
          ((${to}::date) + 1)::timestamp at time zone time_zone as end
        from accounts where id = ${accountId}`,
  );
  return row
    ? {
        timeZone: row.time_zone,
        serviceLevelSeconds: row.service_level_seconds,
        start: new Date(row.start),
        end: new Date(row.end),
      }
    : null;
}
