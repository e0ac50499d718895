/**
 * The product as the routing bench runs it (`taskset -c 0 node --import tsx routing/product-host.ts`):
 * one instance of Leadline, started from the environment as `npm start` does.
 *
 * - **PGlite** (no `DATABASE_URL`): the whole product in one process (`startLeadline`: HTTP API,
 *   PGlite under `DATA_DIR`, the voice engine with its media workers, the call flows), on a
 *   database seeded with the demo and `AGENTS` agents (seed-agents.ts).
 * - **PostgreSQL** (`DATABASE_URL`): `startInstance` (apps/server/src/cluster/start-instance.ts),
 *   as `main.ts` starts every instance: the first one on the database takes the media lease and
 *   runs everything; later ones follow (they relay sockets and call routes to it). With
 *   `SEED=1` it seeds the demo and the agents into the database first (the bench sets it on the
 *   first instance only).
 *
 * Environment: the product's own (`PORT`, `HOST`, `DATA_DIR`, `DATABASE_URL`, `TOKEN_SECRET`,
 * `PUSHER_SECRET`, `LOG_LEVEL`, `AGENT_RING_TIMEOUT_MS`, …), `AGENTS` (default 50), `SEED` (with
 * `DATABASE_URL`), and the probes of burst-probes.ts (`BENCH_SQL_STATS`, `BENCH_BURST_PROF`).
 * Prints one JSON line `{"ready":true,"url":…,"role":"leader"|"follower"}` when it listens;
 * SIGTERM stops it as `npm start` does (so `--cpu-prof` writes its profile).
 */
import { join } from 'node:path';
import { startInstance } from '../../apps/server/src/cluster/start-instance';
import { loadConfig } from '../../apps/server/src/config';
import { openDatabase } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';
import { startLeadline } from '../../apps/server/src/leadline';
import { closeOnSignals } from '../lib/processes';
import { probeProfile, probeStalls, probeStatements, probeWindow } from './burst-probes';
import { seedAgents } from './seed-agents';

if (process.env.BENCH_SQL_STATS) probeStatements(process.env.BENCH_SQL_STATS);
if (process.env.BENCH_BURST_PROF) probeProfile(process.env.BENCH_BURST_PROF);
if (process.env.BENCH_STALLS) probeStalls(process.env.BENCH_STALLS);
if (process.env.BENCH_BURST_WINDOW) probeWindow(process.env.BENCH_BURST_WINDOW);

const config = loadConfig();
const agentCount = Number(process.env.AGENTS ?? 50);

if (config.databaseUrl) {
  if (process.env.SEED === '1') {
    const database = await openDatabase({ url: config.databaseUrl });
    await seedDemo(database.db);
    await seedAgents(database.db, agentCount);
    await database.close();
  }
  const instance = await startInstance(config);
  console.log(JSON.stringify({ ready: true, url: instance.url, role: instance.role() }));
  closeOnSignals(instance);
} else {
  const database = await openDatabase({ dir: join(config.dataDir, 'pglite') });
  await seedDemo(database.db);
  await seedAgents(database.db, agentCount);
  const leadline = await startLeadline(config, { database });
  console.log(JSON.stringify({ ready: true, url: leadline.url, role: 'leader' }));
  closeOnSignals(leadline);
}
