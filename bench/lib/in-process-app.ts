/**
 * The product's HTTP API in the benchmark's own process (`fastify.inject`: routing, session
 * lookup, validation, queries, serialisation; no network), over a database the benchmark opened,
 * with the embedded telephony stand-in; and a scratch PostgreSQL database to run it on.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { SANDBOX_NUMBERS } from '@leadline/voice';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../apps/server/src/app';
import { AccessTokens } from '../../apps/server/src/auth/access-token';
import { LoginThrottle } from '../../apps/server/src/auth/login-throttle';
import { SessionStore } from '../../apps/server/src/auth/sessions';
import { CallControl } from '../../apps/server/src/calls/call-control';
import { CallFlows } from '../../apps/server/src/calls/call-flows';
import { openDatabase, type Database, type Db } from '../../apps/server/src/db/database';
import { EventBus } from '../../apps/server/src/events/event-bus';
import { NetworkTests } from '../../apps/server/src/network-test/network-tests';
import { SandboxSmsSender, SmsService } from '../../apps/server/src/sms/sms-sender';
import { FakeTelephony } from '../../apps/server/src/telephony/fake-telephony';

/** The API in process, and a session cookie for any user. */
export interface InProcessApp {
  app: FastifyInstance;
  /** A `cookie` header value of a new session of `userId`. */
  login: (userId: number) => Promise<string>;
}

/** Builds the API over `db`. */
export async function inProcessApp(db: Db): Promise<InProcessApp> {
  const logger = pino({ level: 'silent' });
  const telephony = new FakeTelephony();
  const flows = new CallFlows({
    db,
    telephony,
    log: logger,
    ringTimeoutMs: 30_000,
    events: new EventBus(),
  });
  const sessions = new SessionStore(db, 3_600_000);
  const app = await buildApp(
    {
      db,
      sessions,
      tokens: new AccessTokens('bench-secret-bench-secret-bench-secret', 3600),
      loginThrottle: new LoginThrottle(db),
      flows,
      control: new CallControl(db, flows),
      sms: new SmsService(db, new SandboxSmsSender()),
      networkTests: new NetworkTests({
        telephony,
        holdBack: (user) => flows.holdAgentBack(user),
        echoNumber: SANDBOX_NUMBERS.echo,
        log: logger,
      }),
      pusher: { appId: 'bench', key: 'bench', secret: 'bench-secret-0123456789', cluster: 'us2' },
    },
    { logger, trustProxy: false, webDistDir: '/nonexistent' },
  );
  return {
    app,
    login: async (userId) => `leadline_session=${(await sessions.create(userId)).cookie}`,
  };
}

/** Times one GET (ms); throws unless it answers 200. */
export async function timedGet(app: FastifyInstance, url: string, cookie: string): Promise<number> {
  const started = performance.now();
  const res = await app.inject({ method: 'GET', url, headers: { cookie } });
  const elapsed = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return elapsed;
}

/**
 * A new database on the PostgreSQL server at `url` (its `drop` ends it), or null when the
 * server does not answer.
 */
export async function openScratchPostgres(
  url: string,
): Promise<{ database: Database; drop: () => Promise<void> } | null> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `leadline_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = await openDatabase({ url: target.toString() });
  return {
    database,
    drop: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name}`);
      await cleanup.end();
    },
  };
}

/**
 * Runs `run` on a fresh PGlite on disk, then on a scratch database of the PostgreSQL server at
 * BENCH_DATABASE_URL (or the local one); `missing` is the sentence for the report when that
 * server does not answer (empty when it did).
 */
export async function onBothDatabases<T>(
  run: (backend: 'PGlite' | 'PostgreSQL', database: Database) => Promise<T>,
): Promise<{ results: T[]; missing: string }> {
  const results: T[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'leadline-bench-'));
  const pglite = await openDatabase({ dir });
  try {
    results.push(await run('PGlite', pglite));
  } finally {
    await pglite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const postgres = await openScratchPostgres(url);
  if (!postgres) {
    return {
      results,
      missing: `PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//…@')} did not answer: its rows are missing from this run.`,
    };
  }
  try {
    results.push(await run('PostgreSQL', postgres.database));
  } finally {
    await postgres.drop();
  }
  return { results, missing: '' };
}
