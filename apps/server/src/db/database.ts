/**
 * Opens the database: the embedded PGlite (real PostgreSQL in WASM) persisted under a folder,
 * or a PostgreSQL server through `pg` when a `postgres://` URL is given. Both get the same
 * schema, migrations and queries.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { serverRoot } from '../lib/app-root';
import * as schema from './schema';

/** The Drizzle database, whichever driver runs it. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A database or a transaction of it (`db.transaction`'s argument). */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

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
    // Short interactive queries: JIT compilation costs more than it saves (tens of ms).
    const pool = new pg.Pool({ connectionString: location.url, max: 10, options: '-c jit=off' });
    // An idle connection the server ends (a restart, a failover, `pg_terminate_backend`, a
    // dropped database) is an 'error' of the pool: without a listener Node ends the process.
    // The pool has already let that connection go and opens a new one for the next query.
    pool.on('error', (error) => {
      process.emitWarning(`PostgreSQL ended an idle connection of the pool: ${error.message}`);
    });
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

/**
 * Runs raw SQL and returns its rows. Both drivers answer with `{ rows }`; the shared `Db`
 * type cannot say so, hence the one cast here.
 */
export async function queryRows<T extends Record<string, unknown>>(
  db: Db,
  query: SQL,
): Promise<T[]> {
  const result = (await db.execute<T>(query)) as { rows: T[] };
  return result.rows;
}

/**
 * Runs `text` with positional parameters (`$1`…) straight on the driver (PGlite's or `pg`'s
 * `query`, which both answer `{ rows }`), for a hot statement whose text is built once. Not
 * inside a transaction: `db` must be the database itself.
 */
export async function driverQuery<T extends Record<string, unknown>>(
  db: Db,
  text: string,
  params: unknown[],
): Promise<T[]> {
  const client = (db as unknown as { $client?: DriverClient }).$client;
  if (!client) throw new Error('driverQuery needs the database, not a transaction.');
  const result = await client.query<T>(text, params);
  return result.rows;
}

/** What PGlite and a `pg` pool have in common. */
interface DriverClient {
  query<T>(text: string, params: unknown[]): Promise<{ rows: T[] }>;
}
