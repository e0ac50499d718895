/**
 * Vitest global setup of the end-to-end run: the embedded database every spec's product starts
 * on, made once. A product started on a fresh data folder spends about 2.5 s creating PGlite's
 * cluster, migrating and seeding the demo; each spec's product instead starts on a copy of this
 * folder (migrated and seeded by the server's own code), which it opens as it would its own
 * after a restart. The server's tests cover the first start on an empty folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite folder, migrated and seeded with the demo, to copy as `DATA_DIR/pglite`. */
    seededPglite: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'leadline-e2e-seed-'));
  const pglite = join(dir, 'pglite');
  const database = await openDatabase({ dir: pglite });
  await seedDemo(database.db);
  await database.close();
  project.provide('seededPglite', pglite);
  return () => rm(dir, { recursive: true, force: true });
}
