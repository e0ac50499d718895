/**
 * API latency at scale: GET /api/v1/users/paginated and GET /api/v1/mycalls with 10,000 users
 * and 100,000 calls in one account, on the embedded database (PGlite on disk) and on
 * PostgreSQL, p50/p99 over a few hundred in-process requests (fastify.inject: the handler,
 * its queries and serialisation, no network), against references measured in the same run.
 *
 *   npx tsx bench/api/api-latency.ts            (PostgreSQL at BENCH_DATABASE_URL or
 *                                               postgres://postgres@127.0.0.1:5432/test; skipped
 *                                               with a note if it does not answer)
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../apps/server/src/db/database';
import { seedDemo } from '../../apps/server/src/db/seed';
import { seedScale } from '../../apps/server/src/test-support/scale-seed';
import { quantile, round } from '../lib/stats';
import { inProcessApp, onBothDatabases, timedGet } from '../lib/in-process-app';
import { publishSection } from '../lib/sections';
import type { ApiLatencyRow } from './api-latency-section';

const USERS = 10_000;
const CALLS = 100_000;
const SAMPLES = 400;
const WARMUP = 40;

/** The next request to time: its URL and whose session sends it. */
type NextRequest = () => { url: string; cookie: string };

async function measure(
  app: FastifyInstance,
  next: NextRequest,
): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const { url, cookie } = next();
    const elapsed = await timedGet(app, url, cookie);
    if (i >= WARMUP) times.push(elapsed);
  }
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function run(backend: string, database: Database): Promise<ApiLatencyRow[]> {
  const { db } = database;
  const seedStarted = performance.now();
  await seedDemo(db);
  const seed = await seedScale(db, { users: USERS, calls: CALLS });
  console.log(
    `${backend}: seeded ${USERS} users and ${CALLS} calls in ${round((performance.now() - seedStarted) / 1000, 1)} s`,
  );
  const { app, login } = await inProcessApp(db);
  const supervisor = await login(3);
  let n = 0;
  const pick = (max: number) => 1 + ((n++ * 7919) % max);
  const agentCookies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => login(seed.firstUserId + i * 499)),
  );
  const rows: ApiLatencyRow[] = [];
  const record = async (name: string, next: NextRequest) => {
    const { p50, p99 } = await measure(app, next);
    rows.push({ backend, name, p50, p99 });
    console.log(`${backend} ${name}: p50 ${round(p50)} ms, p99 ${round(p99)} ms`);
  };
  await record('GET /healthz (reference)', () => ({ url: '/healthz', cookie: supervisor }));
  await record('GET /api/v1/user (reference)', () => ({
    url: `/api/v1/user?time=${n++}`,
    cookie: supervisor,
  }));
  await record('GET /api/v1/users/paginated (online, page 1–100)', () => ({
    url: `/api/v1/users/paginated?page=${pick(100)}`,
    cookie: supervisor,
  }));
  await record('GET /api/v1/users/paginated (all, page 1–1000)', () => ({
    url: `/api/v1/users/paginated?status=all&page=${pick(1000)}`,
    cookie: supervisor,
  }));
  await record('GET /api/v1/users/paginated (available, search)', () => ({
    url: `/api/v1/users/paginated?status=available&search=Agent%2000${pick(99)}`,
    cookie: supervisor,
  }));
  await record('GET /api/v1/users/paginated (on_call)', () => ({
    url: '/api/v1/users/paginated?status=on_call',
    cookie: supervisor,
  }));
  let agent = 0;
  await record('GET /api/v1/mycalls (20 agents, limit 5, page 1–3)', () => ({
    url: `/api/v1/mycalls?limit=5&page=${pick(3)}`,
    cookie: agentCookies[agent++ % agentCookies.length]!,
  }));
  await app.close();
  return rows;
}

const { results, missing } = await onBothDatabases(run);
const rows = results.flat();
publishSection('api-latency', {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  users: USERS,
  calls: CALLS,
  samples: SAMPLES,
  warmup: WARMUP,
  rows,
  missing,
});
console.log('wrote the api-latency section of docs/benchmarks.md');
