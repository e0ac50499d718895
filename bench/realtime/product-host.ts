/**
 * The product as the realtime bench runs it (`taskset -c 0 node --import tsx realtime/product-host.ts`):
 * the whole of Leadline in one process, started by `startLeadline` from the environment as
 * `npm start` does (HTTP API, PGlite under `DATA_DIR`, the voice engine with its media workers,
 * the embedded Pusher-protocol endpoint at `/app/{key}` on the same port), on a database seeded
 * with the demo.
 *
 * Environment: the product's own (`PORT`, `HOST`, `DATA_DIR`, `LOG_LEVEL`, `PUSHER_SECRET`, …).
 * Prints one JSON line `{"ready":true,"url":…}` when it listens; SIGTERM stops it as
 * `npm start` does (so `--cpu-prof` writes its profile).
 */
import { join } from 'node:path';
import { loadConfig } from '../../apps/server/src/config';
import { openDatabase } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';
import { startLeadline } from '../../apps/server/src/leadline';
import { closeOnSignals } from '../lib/processes';

const config = loadConfig();
const database = await openDatabase(
  config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
);
await seedDemo(database.db);
const leadline = await startLeadline(config, { database });
console.log(JSON.stringify({ ready: true, url: leadline.url }));

closeOnSignals(leadline);
