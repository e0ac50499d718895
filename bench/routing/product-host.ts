/**
 * The product as the routing bench runs it (`taskset -c 0 node --import tsx routing/product-host.ts`):
 * the whole of Leadline in one process, started by `startLeadline` from the environment as
 * `npm start` does (HTTP API, PGlite under `DATA_DIR`, the voice engine with its media workers,
 * the call flows), on a database seeded with the demo and `AGENTS` agents (seed-agents.ts).
 *
 * Environment: the product's own (`PORT`, `HOST`, `DATA_DIR`, `LOG_LEVEL`,
 * `AGENT_RING_TIMEOUT_MS`, …), `AGENTS` (default 50), and the probes of burst-probes.ts
 * (`BENCH_SQL_STATS`, `BENCH_BURST_PROF`). Prints one JSON line
 * `{"ready":true,"url":…,"agents":[e-mails]}` when it listens; SIGTERM stops it as `npm start`
 * does (so `--cpu-prof` writes its profile).
 */
import { join } from 'node:path';
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
const database = await openDatabase(
  config.databaseUrl ? { url: config.databaseUrl } : { dir: join(config.dataDir, 'pglite') },
);
await seedDemo(database.db);
const agents = await seedAgents(database.db, agentCount);
const leadline = await startLeadline(config, { database });
console.log(JSON.stringify({ ready: true, url: leadline.url, agents }));

closeOnSignals(leadline);
