/**
 * The floor's figures kept as calls change (issue 39: the floor for 100,000 calls a day answers
 * in well under 200 ms, which counting the day's calls at each read cannot on PGlite).
 *
 * Per account and 15-minute interval of arrival (`bucket`, UTC-aligned: every zone's intervals
 * are unions of them) the database keeps the offered calls' counts: offered, answered, missed,
 * abandoned, answered within the service level (`sl_met`), answered or ended (`settled`), the
 * answered calls' summed answer time, the answered and ended calls (`handled`) with their summed
 * talk plus wrap-up, and the talk seconds. Migration 0016's trigger on `calls` appends what each
 * insert, change or removal did (`floor_count_deltas`; appends never wait on each other) in the
 * same transaction as the change, so the counts are never behind the calls; {@link foldFloorCounts}
 * folds the deltas into `floor_counts` every few seconds, and a read sums both. The definitions
 * are `figureColumns`' (`call-figures.ts`), which the reports count over the calls themselves;
 * `floor-counts.integration.test.ts` checks the two agree.
 *
 * What moves with the clock alone is read from the calls as of `at`, over small sets found by
 * index: the unanswered calls still waiting past the threshold (their fate against the service
 * level is then known), and the calls whose agent is still wrapping up (not handled yet).
 *
 * The counts' `sl_met` is against the account's threshold when the call changed; changing the
 * threshold counts the account's calls again (the trigger on `accounts`). A call written by a
 * transaction that read the old threshold while the new one commits keeps the old test.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Db } from '../db/database';
import { share, type CallFigures } from './call-figures';

/** How often each instance folds the deltas into the counts. */
export const FOLD_INTERVAL_MS = 5_000;

/** The counts' columns, summed. */
const SUMS = sql.raw(`sum(offered)::int as offered, sum(answered)::int as answered,
  sum(missed)::int as missed, sum(abandoned)::int as abandoned, sum(sl_met)::int as sl_met,
  sum(settled)::int as settled, sum(answer_micros)::float8 as answer_micros,
  sum(handled)::int as handled, sum(handle_micros)::float8 as handle_micros,
  sum(talk_seconds)::float8 as talk_seconds`);
const COLUMNS = sql.raw(`offered, answered, missed, abandoned, sl_met, settled, answer_micros,
  handled, handle_micros, talk_seconds`);

/**
 * Moves every delta into the counts (one statement: a concurrent fold on another instance takes
 * the rows this one did not; counts rows are written in key order, so two folds never deadlock).
 * Returns how many deltas it folded.
 */
export async function foldFloorCounts(db: Db): Promise<number> {
  const [row] = await queryRows<{ folded: number }>(
    db,
    sql`with moved as (delete from floor_count_deltas returning *),
        summed as (
          select account_id, bucket, ${SUMS}, count(*)::int as deltas
          from moved group by account_id, bucket),
        written as (
          insert into floor_counts (account_id, bucket, ${COLUMNS})
          select account_id, bucket, ${COLUMNS} from summed order by account_id, bucket
          on conflict (account_id, bucket) do update set
            offered = floor_counts.offered + excluded.offered,
            answered = floor_counts.answered + excluded.answered,
            missed = floor_counts.missed + excluded.missed,
            abandoned = floor_counts.abandoned + excluded.abandoned,
            sl_met = floor_counts.sl_met + excluded.sl_met,
            settled = floor_counts.settled + excluded.settled,
            answer_micros = floor_counts.answer_micros + excluded.answer_micros,
            handled = floor_counts.handled + excluded.handled,
            handle_micros = floor_counts.handle_micros + excluded.handle_micros,
            talk_seconds = floor_counts.talk_seconds + excluded.talk_seconds
          returning 1)
        select coalesce((select sum(deltas) from summed), 0)::int as folded`,
  );
  return Number(row?.folded ?? 0);
}

/** PGlite runs no autovacuum: the folds' dead rows are vacuumed after this many folds. */
export const VACUUM_EVERY_FOLDS = 12;

/**
 * Folds every `intervalMs` until stopped (on every instance; concurrent folds are safe);
 * errors go to `onError` and the next fold retries. On PGlite, which has no autovacuum, the
 * deltas' table is vacuumed now and then, so the rows folds delete do not pile up.
 */
export function keepFoldingFloorCounts(
  database: Database,
  onError: (error: unknown) => void,
  intervalMs = FOLD_INTERVAL_MS,
): () => void {
  let running = false;
  let foldsSinceVacuum = 0;
  const fold = async () => {
    if ((await foldFloorCounts(database.db)) === 0) return;
    if (database.driver !== 'pglite' || ++foldsSinceVacuum < VACUUM_EVERY_FOLDS) return;
    foldsSinceVacuum = 0;
    await database.db.execute(sql`vacuum floor_count_deltas`);
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    fold()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The figures of an account's calls that arrived in [`start`, `end`), as of `at`. */
export interface CountedFigures {
  /** The whole range. */
  whole: CallFigures;
  /** Each 15-minute interval with a call, by its start (ms since the epoch). */
  byBucket: Map<number, CallFigures>;
}

interface Sums {
  offered: number;
  answered: number;
  missed: number;
  abandoned: number;
  slMet: number;
  slKnown: number;
  answerMicros: number;
  handled: number;
  handleMicros: number;
  talkSeconds: number;
}

const emptySums = (): Sums => ({
  offered: 0,
  answered: 0,
  missed: 0,
  abandoned: 0,
  slMet: 0,
  slKnown: 0,
  answerMicros: 0,
  handled: 0,
  handleMicros: 0,
  talkSeconds: 0,
});

function add(into: Sums, from: Sums): void {
  for (const key of Object.keys(into) as Array<keyof Sums>) into[key] += from[key];
}

function figuresOfSums(sums: Sums): CallFigures {
  return {
    offered: sums.offered,
    answered: sums.answered,
    missed: sums.missed,
    abandoned: sums.abandoned,
    answer_rate: share(sums.answered, sums.offered),
    average_speed_of_answer_seconds:
      sums.answered > 0 ? sums.answerMicros / sums.answered / 1e6 : null,
    average_handle_seconds: sums.handled > 0 ? sums.handleMicros / sums.handled / 1e6 : null,
    service_level: share(sums.slMet, sums.slKnown),
    talk_seconds: sums.talkSeconds,
  };
}

/**
 * The figures of account `accountId`'s offered calls that arrived in [`start`, `end`) (both on
 * 15-minute boundaries), as of `at`, from the kept counts.
 */
export async function countedFigures(
  db: Db,
  accountId: number,
  range: { start: Date; end: Date; at: Date; thresholdSeconds: number },
): Promise<CountedFigures> {
  const start = range.start.toISOString();
  const end = range.end.toISOString();
  const at = range.at.toISOString();
  const counted = await queryRows<Record<string, number | string | Date>>(
    db,
    sql`select bucket, ${SUMS} from (
          select bucket, ${COLUMNS} from floor_counts
          where account_id = ${accountId} and bucket >= ${start}::timestamptz and bucket < ${end}::timestamptz
          union all
          select bucket, ${COLUMNS} from floor_count_deltas
          where account_id = ${accountId} and bucket >= ${start}::timestamptz and bucket < ${end}::timestamptz
        ) f group by bucket`,
  );
  // What the clock moves: unanswered calls waiting past the threshold (not ended: found by
  // calls_unended_idx), and handled calls whose wrap-up runs past `at` (calls_wrap_up_end_idx).
  const moving = await queryRows<Record<string, number | string | Date>>(
    db,
    sql`select date_bin('15 minutes', c.created_at, timestamptz '2000-01-01 00:00:00+00') as bucket,
          count(*) filter (where c.ended_at is null and c.answered_at is null
            and ${at}::timestamptz - c.created_at > make_interval(secs => ${range.thresholdSeconds}))::int as waiting_past,
          count(*) filter (where c.ended_at is not null and c.answered_at is not null)::int as wrapping,
          coalesce(sum(c.seconds::bigint * 1000000
            + round(extract(epoch from c.wrap_up_ended_at - c.ended_at) * 1000000)::bigint)
            filter (where c.ended_at is not null and c.answered_at is not null), 0)::float8 as wrapping_micros
        from (
          select * from calls where account_id = ${accountId} and ended_at is null
            and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
          union all
          select * from calls where account_id = ${accountId} and wrap_up_ended_at > ${at}::timestamptz
            and ended_at is not null
            and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
        ) c
        where c.source in ('web', 'inbound')
        group by 1`,
  );
  const sums = new Map<number, Sums>();
  const bucketSums = (bucket: unknown): Sums => {
    const key = new Date(bucket as string | Date).getTime();
    let found = sums.get(key);
    if (!found) sums.set(key, (found = emptySums()));
    return found;
  };
  for (const row of counted) {
    add(bucketSums(row.bucket), {
      offered: Number(row.offered),
      answered: Number(row.answered),
      missed: Number(row.missed),
      abandoned: Number(row.abandoned),
      slMet: Number(row.sl_met),
      slKnown: Number(row.settled),
      answerMicros: Number(row.answer_micros),
      handled: Number(row.handled),
      handleMicros: Number(row.handle_micros),
      talkSeconds: Number(row.talk_seconds),
    });
  }
  for (const row of moving) {
    const into = bucketSums(row.bucket);
    into.slKnown += Number(row.waiting_past);
    into.handled -= Number(row.wrapping);
    into.handleMicros -= Number(row.wrapping_micros);
  }
  const whole = emptySums();
  const byBucket = new Map<number, CallFigures>();
  for (const [bucket, bucketTotals] of sums) {
    add(whole, bucketTotals);
    byBucket.set(bucket, figuresOfSums(bucketTotals));
  }
  return { whole: figuresOfSums(whole), byBucket };
}
