/**
 * The product as the API benchmark runs it (`taskset -c 0 node --import tsx api/api-host.ts`):
 * the whole of Leadline started by `startLeadline` from the environment as `npm start` does
 * (HTTP API, PGlite under `DATA_DIR`, the voice engine, the call flows), on a database seeded
 * with the demo and, in the demo account, `USERS` agents and `CALLS` finished calls
 * (apps/server/src/test-support/scale-seed.ts). Prints one JSON line `{"ready":true,"url":…}`
 * when it listens; SIGTERM stops it as `npm start` is stopped. SIGUSR2 starts a CPU profile of
 * the main thread (HTTP, PGlite, the call flows), the next SIGUSR2 stops it and writes it to
 * `PROFILE_OUT`, then prints `{"profiled":<file>}`: the bench profiles a window of its own
 * after the measured ones, which ran unprofiled.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { loadConfig } from '../../apps/server/src/config';
import { openDatabase } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';
import { startLeadline } from '../../apps/server/src/leadline';
import { seedScale } from '../../apps/server/src/test-support/scale-seed';
import { closeOnSignals } from '../lib/processes';

const config = loadConfig();
const database = await openDatabase(
  config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
);
await seedDemo(database.db);
await seedScale(database.db, {
  users: Number(process.env.USERS ?? 10_000),
  calls: Number(process.env.CALLS ?? 100_000),
});
const leadline = await startLeadline(config, { database });
console.log(JSON.stringify({ ready: true, url: leadline.url }));
closeOnSignals(leadline);

const inspector = new Session();
inspector.connect();
let profiling = false;
process.on('SIGUSR2', () => {
  profiling = !profiling;
  if (profiling) {
    void inspector.post('Profiler.enable').then(() => inspector.post('Profiler.start'));
    return;
  }
  void inspector.post('Profiler.stop').then(({ profile }) => {
    writeFileSync(process.env.PROFILE_OUT!, JSON.stringify(profile));
    console.log(JSON.stringify({ profiled: process.env.PROFILE_OUT }));
  });
});
