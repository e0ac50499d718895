/**
 * The database a product started as a child process keeps across its runs, for restart tests:
 * the embedded PGlite under `DATA_DIR/pglite` (the product's own default), or, when
 * `DATABASE_URL` is set (CI runs the server tests again on PostgreSQL), a scratch database on
 * that server made for the test and dropped after it.
 *
 * PGlite is one process's database: the test opens it only while no product runs on it.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../db/database';

/** The product's database between its runs. */
export interface PersistedDatabase {
  /** `pglite` (a folder under the data folder) or `pg` (a scratch database). */
  driver: 'pglite' | 'pg';
  /** What the product's environment needs to use it (`DATABASE_URL`, or nothing for PGlite). */
  env: Record<string, string>;
  /** Opens it; for PGlite only while no product runs on it. */
  open(): Promise<Database>;
  /**
   * Opens it as it is now without touching it: PGlite's folder is copied first (as a killed
   * process left it; opening the copy recovers the copy, not the original), PostgreSQL's
   * database is opened as is. Closing the snapshot removes the copy.
   */
  openSnapshot(): Promise<Database>;
  /** Drops the scratch database (PostgreSQL); the PGlite folder goes with the data folder. */
  drop(): Promise<void>;
}

/**
 * The database of a product whose data folder is `dataDir`: PGlite there, or a new scratch
 * database on the server of `adminUrl` (default `DATABASE_URL`) when one is given.
 */
export async function createPersistedDatabase(
  dataDir: string,
  adminUrl: string | undefined = process.env.DATABASE_URL,
): Promise<PersistedDatabase> {
  if (!adminUrl) {
    const dir = join(dataDir, 'pglite');
    return {
      driver: 'pglite',
      env: {},
      open: () => openDatabase({ dir }),
      async openSnapshot() {
        const copy = await mkdtemp(join(tmpdir(), 'leadline-snapshot-'));
        await cp(dir, join(copy, 'pglite'), { recursive: true });
        const database = await openDatabase({ dir: join(copy, 'pglite') });
        return {
          ...database,
          async close() {
            await database.close();
            await rm(copy, { recursive: true, force: true });
          },
        };
      },
      drop: async () => undefined,
    };
  }
  const { default: pg } = await import('pg');
  const name = `leadline_restart_${randomBytes(6).toString('hex')}`;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  return {
    driver: 'pg',
    env: { DATABASE_URL: url },
    open: () => openDatabase({ url }),
    openSnapshot: () => openDatabase({ url }),
    // `with (force)`: a killed product's connections may not be gone yet on the server's side.
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}
