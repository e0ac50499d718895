/**
 * Planner statistics for PGlite. A PostgreSQL server's autovacuum daemon analyzes tables as they
 * change; PGlite runs no daemon, so without this its planner never learns how big any table is
 * and plans every query on default guesses (routing's pick, for one, then joins the live calls
 * by nested loop and takes twice as long). Tables are analyzed when the server starts and then
 * on a timer; on PostgreSQL autovacuum does it and this does nothing.
 */
import { sql } from 'drizzle-orm';
import type { Database } from './database';

/** How often PGlite's tables are analyzed again after the start. */
export const ANALYZE_INTERVAL_MS = 60 * 60_000;

/** Analyzes PGlite's tables now and every `intervalMs`; returns how to stop the timer. */
export async function keepPlannerStatistics(
  database: Database,
  onError: (error: unknown) => void,
  intervalMs = ANALYZE_INTERVAL_MS,
): Promise<() => void> {
  if (database.driver !== 'pglite') return () => undefined;
  await database.db.execute(sql`analyze`);
  const timer = setInterval(() => {
    database.db.execute(sql`analyze`).catch(onError);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
