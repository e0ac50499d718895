/**
 * Opens the database: the embedded PGlite (real PostgreSQL in WASM) persisted under a folder,
 * or a PostgreSQL server through `pg` when a `postgres://` URL is given. Both get the same
 * schema, migrations and queries.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { serverRoot } from '../lib/app-root';
import * as schema from './schema';

/** The Drizzle database, whichever driver runs it. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database and how to close it. */
export interface Database {
  db: Db;
  driver: 'pglite' | 'pg';
  close(): Promise<void>;
}

/** Where the database lives: `url` for PostgreSQL, `dir` for PGlite (`memory://` for tests). */
export type DatabaseLocation = { url: string } | { dir: string };

const migrationsFolder = () => join(serverRoot(), 'drizzle');

/** Opens the database and applies every pending migration. */
export async function openDatabase(location: DatabaseLocation): Promise<Database> {
  if ('url' in location) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const pool = new pg.Pool({ connectionString: location.url, max: 10 });
    const db = drizzle(pool, { schema });
    await migrate(db, { migrationsFolder: migrationsFolder() });
    return { db: db as unknown as Db, driver: 'pg', close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  if (!location.dir.startsWith('memory://')) mkdirSync(location.dir, { recursive: true });
  const client = await PGlite.create(location.dir);
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: migrationsFolder() });
  return { db: db as unknown as Db, driver: 'pglite', close: () => client.close() };
}
