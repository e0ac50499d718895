/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new
 * database on the PostgreSQL server of `DATABASE_URL` (dropped again on close).
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../db/database';

/** Opens a fresh test database. */
export async function openTestDatabase(): Promise<Database> {
  const shared = await openSharedTestDatabase(1);
  return { ...shared.databases[0]!, close: () => shared.close() };
}

/** One fresh database as several instances of the server open it. */
export interface SharedTestDatabase {
  /** What each instance opened: its own pool on PostgreSQL, the one PGlite shared. */
  databases: Database[];
  /** The scratch database's URL on PostgreSQL; undefined on PGlite. */
  url: string | undefined;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database opened `pools` times: on the PostgreSQL server of `DATABASE_URL`,
 * a scratch database with a pool per opening (dropped on close); on PGlite, the one in-memory
 * database shared by all of them.
 */
export async function openSharedTestDatabase(pools: number): Promise<SharedTestDatabase> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const database = await openDatabase({ dir: 'memory://' });
    return {
      databases: Array.from({ length: pools }, () => database),
      url: undefined,
      close: () => database.close(),
    };
  }
  const { default: pg } = await import('pg');
  const name = `leadline_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const databases: Database[] = [];
  for (let i = 0; i < pools; i++) databases.push(await openDatabase({ url: target.toString() }));
  return {
    databases,
    url: target.toString(),
    async close() {
      for (const database of databases) await database.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name}`);
      await cleanup.end();
    },
  };
}
