/**
 * Counts row changes in the test database: a row-level trigger on every table bumps one
 * counter, so "did this request change any row?" is one read before and one after.
 */
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/database';

const TABLES = [
  'accounts',
  'users',
  'teams',
  'team_members',
  'profiles',
  'tags',
  'caller_numbers',
  'leads',
  'calls',
  'call_users',
  'notes',
  'sms_messages',
  'sessions',
  'api_keys',
  'idempotency_keys',
];

/**
 * Tables of the server's own bookkeeping, not the product's data: the anonymous routes' rate-limit
 * counts and the webhooks already handled. A request refused past a limit, or a repeated
 * webhook, still counts there, and "changes nothing" does not look at them.
 */
export const BOOKKEEPING_TABLES: readonly string[] = ['rate_limit_hits', 'webhook_receipts'];

/** Installs the counter; returns a reader of the number of rows changed so far. */
export async function installChangeCounter(db: Db): Promise<() => Promise<number>> {
  await db.execute(sql`create table if not exists test_row_changes (n bigint not null)`);
  await db.execute(
    sql`insert into test_row_changes (n) select 0 where not exists (select 1 from test_row_changes)`,
  );
  await db.execute(
    sql.raw(`create or replace function test_bump_row_changes() returns trigger language plpgsql as $$
      begin update test_row_changes set n = n + 1; return null; end $$`),
  );
  for (const table of TABLES) {
    await db.execute(
      sql.raw(`create or replace trigger test_count_${table} after insert or update or delete on ${table}
        for each row execute function test_bump_row_changes()`),
    );
  }
  return async () => {
    const [row] = await queryRows<{ n: string }>(
      db,
      sql`select n::text as n from test_row_changes`,
    );
    return Number(row!.n);
  };
}
