/**
 * Every call of an account over a range of its days, as CSV (issue 39:
 * `GET /api/v1/reports/calls.csv`): read in batches of `CSV_BATCH_ROWS` by id (keyset, not
 * offset: each batch is an index range), written through `csv-stringify` as the reader takes
 * them, so a million calls are never held at once. Times are the account's; the statuses and
 * reasons are the ones History shows (`historyStatus`).
 *
 * Cells of free text (names, dispositions, tags) that a spreadsheet would run as a formula
 * (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) get a leading `'`: opened in a
 * spreadsheet, the export shows text, never runs it.
 */
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { sql } from 'drizzle-orm';
import { CALLS_CSV_COLUMNS } from '@leadline/contracts';
import { queryRows, type Db } from '../db/database';
import { accountRange, type AccountRange } from '../floor/call-figures';
import { historyStatus } from '../history/history-status';

/** Calls read per statement. */
export const CSV_BATCH_ROWS = 1000;

/** One call as the export reads it. */
interface CallCsvRow {
  id: number;
  local_time: string;
  direction: string;
  fname: string | null;
  lname: string | null;
  number: string | null;
  agent: string | null;
  team: string | null;
  profile: string | null;
  status: string;
  reason: string | null;
  wait_seconds: number | null;
  seconds: number;
  wrap_up_seconds: number | null;
  disposition: string | null;
  tag: string | null;
  notes: number;
  recording_url: string | null;
}

/** A cell a spreadsheet would read as a formula, made text. */
export function spreadsheetSafe(value: string | null): string {
  if (value === null) return '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** The rows of `[start, end)` after call `afterId`, by id. */
function batch(
  db: Db,
  accountId: number,
  range: AccountRange,
  afterId: number,
  now: Date,
): Promise<CallCsvRow[]> {
  return queryRows<CallCsvRow & Record<string, unknown>>(
    db,
    sql`select c.id,
          to_char(c.created_at at time zone ${range.timeZone}, 'YYYY-MM-DD HH24:MI:SS') as local_time,
          c.direction, l.fname, l.lname, coalesce(c.phone_number, l.phone_number) as number,
          u.full_name as agent, t.name as team, p.name as profile, c.status, c.reason,
          case
            when c.answered_at is not null then extract(epoch from c.answered_at - c.created_at)
            when c.ended_at is not null then extract(epoch from c.ended_at - c.created_at)
          end::int as wait_seconds,
          c.seconds,
          case when c.ended_at is not null and c.wrap_up_ended_at <= ${now.toISOString()}::timestamptz
            then extract(epoch from c.wrap_up_ended_at - c.ended_at) end::int as wrap_up_seconds,
          c.disposition,
          coalesce((select g.name from tags g
            where g.profile_id = c.profile_id and g.key = c.stage_key limit 1), c.stage_key) as tag,
          (select count(*) from notes n where n.call_id = c.id)::int as notes,
          c.recording_url
        from calls c
          left join leads l on l.id = c.lead_id
          left join users u on u.id = c.user_id
          left join profiles p on p.id = c.profile_id
          left join teams t on t.id = p.team_id
        where c.account_id = ${accountId}
          and c.created_at >= ${range.start.toISOString()}::timestamptz
          and c.created_at < ${range.end.toISOString()}::timestamptz
          and c.id > ${afterId}
        order by c.id
        limit ${CSV_BATCH_ROWS}`,
  );
}

/** The CSV record of a row, in `CALLS_CSV_COLUMNS` order. */
function recordOf(row: CallCsvRow): Array<string | number> {
  const shown = historyStatus(row.status, row.seconds, row.reason);
  const lead = [row.fname, row.lname].filter(Boolean).join(' ');
  return [
    row.local_time,
    row.direction,
    spreadsheetSafe(lead),
    row.number ?? '',
    spreadsheetSafe(row.agent),
    spreadsheetSafe(row.team),
    spreadsheetSafe(row.profile),
    shown.status_display,
    shown.reason ?? '',
    row.wait_seconds ?? '',
    row.seconds,
    row.wrap_up_seconds ?? '',
    spreadsheetSafe(row.disposition),
    spreadsheetSafe(row.tag),
    row.notes,
    row.recording_url ?? '',
  ];
}

/** The records of every call of the range, batch after batch, as the reader takes them. */
async function* records(
  db: Db,
  accountId: number,
  range: AccountRange,
  now: Date,
): AsyncGenerator<Array<string | number>> {
  let afterId = 0;
  for (;;) {
    const rows = await batch(db, accountId, range, afterId, now);
    for (const row of rows) yield recordOf(row);
    if (rows.length < CSV_BATCH_ROWS) return;
    afterId = rows[rows.length - 1]!.id;
  }
}

/**
 * The account's calls of the days `from` to `to` (its zone, both included) as a CSV stream with
 * a header row, or null for an unknown account.
 */
export async function callsCsv(
  db: Db,
  accountId: number,
  range: { from: string; to: string },
  now: Date,
): Promise<Readable | null> {
  const bounds = await accountRange(db, accountId, range.from, range.to);
  if (!bounds) return null;
  const csv = stringify({ header: true, columns: [...CALLS_CSV_COLUMNS] });
  // A failed read ends the download where it was (the answer has begun): `pipeline` destroys
  // the CSV stream with the error, and the server closes the response.
  return pipeline(Readable.from(records(db, accountId, bounds, now)), csv, () => undefined);
}
