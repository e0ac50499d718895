import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test-support/test-database';
import { queryRows, type Database } from './database';
import { keepPlannerStatistics } from './planner-statistics';

/** How many rows the planner believes `table` has (-1: never analyzed). */
async function plannerRows(database: Database, table: string): Promise<number> {
  const [row] = await queryRows<{ reltuples: number }>(
    database.db,
    sql`select reltuples from pg_class where relname = ${table}`,
  );
  return Number(row!.reltuples);
}

describe('planner statistics', () => {
  let database: Database;
  let stop = () => undefined as void;

  afterEach(async () => {
    stop();
    await database.close();
  });

  it('PGlite runs no autovacuum: the tables are analyzed at start and again on the timer', async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`insert into accounts (name) values ('A')`);
    await database.db.execute(
      sql`insert into leads (account_id, fname, phone_number)
          select (select min(id) from accounts), 'Lee', '+1555' || g from generate_series(1, 300) g`,
    );
    expect(await plannerRows(database, 'leads')).toBe(-1);

    const failures: unknown[] = [];
    stop = await keepPlannerStatistics(database, (error) => failures.push(error), 50);
    if (database.driver === 'pg') {
      // A PostgreSQL server's autovacuum does it (not within this test): nothing is run here.
      expect(await plannerRows(database, 'leads')).toBe(-1);
      return;
    }
    expect(await plannerRows(database, 'leads')).toBe(300);

    await database.db.execute(
      sql`insert into leads (account_id, fname, phone_number)
          select (select min(id) from accounts), 'Lee', '+1666' || g from generate_series(1, 200) g`,
    );
    await expect
      .poll(() => plannerRows(database, 'leads'), { timeout: 10_000, interval: 20 })
      .toBe(500);
    expect(failures).toEqual([]);
  });
});
