/**
 * PostgreSQL ending an idle connection of the pool (a restart, a failover, an administrator's
 * `pg_terminate_backend`) is survived: the process goes on, the next query opens a new one.
 * Without the pool's error listener Node ends the process on such an 'error' event.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { queryRows, type Database } from './database';

const url = process.env.DATABASE_URL;
let persisted: PersistedDatabase | undefined;
let database: Database | undefined;

beforeAll(async () => {
  if (!url) return;
  persisted = await createPersistedDatabase('/tmp', url);
  database = await persisted.open();
}, 60_000);
afterAll(async () => {
  await database?.close();
  await persisted?.drop();
});

it.runIf(url)('an idle connection the server ends is replaced; nothing is thrown', async () => {
  const db = database!.db;
  const [backend] = await queryRows<{ pid: number }>(db, sql`select pg_backend_pid() as pid`);
  const pid = backend!.pid;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  try {
    const admin = await persisted!.open();
    await queryRows(admin.db, sql`select pg_terminate_backend(${pid}::int)`);
    await admin.close();
    await expect.poll(() => warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/^PostgreSQL ended an idle connection of the pool: /);
    const [row] = await queryRows<{ one: number }>(db, sql`select 1 as one`);
    expect(row?.one).toBe(1);
  } finally {
    process.off('warning', onWarning);
  }
});
