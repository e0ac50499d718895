/**
 * The media lease on a scratch PostgreSQL database (issue 38, item 3): one holder at a time,
 * the `media_leader` row naming it with a growing epoch, a follower taking over when the
 * holder's session ends (a crash) or when it closes (a clean stop), a holder that loses its
 * session or its row told so. Timers are moved by hand; the database is real.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../test-support/manual-clock';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { waitUntil } from '../test-support/wait-until';
import {
  LEASE_HEARTBEAT_MS,
  LEASE_RETRY_MS,
  MediaLease,
  pgLeaseConnection,
  readMediaLeader,
} from './media-lease';

let dataDir: string;
let database: PersistedDatabase;
let admin: pg.Client;
let leases: MediaLease[] = [];
const quiet = { info: () => undefined, warn: () => undefined };

interface Instance {
  lease: MediaLease;
  clock: ManualClock;
  lost: Error[];
  /** How many times it took the lock after following. */
  led: number[];
}

function instance(name: string): Instance {
  const clock = new ManualClock();
  const lost: Error[] = [];
  const led: number[] = [];
  const lease = new MediaLease({
    connect: pgLeaseConnection(database.env.DATABASE_URL!),
    instanceId: name,
    timers: clock,
    log: quiet,
    onLeading: () => led.push(1),
    onLost: (error) => lost.push(error),
  });
  leases.push(lease);
  return { lease, clock, lost, led };
}

const row = () => readMediaLeader((text, params) => admin.query(text, params));

beforeAll(async () => {
  if (!process.env.DATABASE_URL) return;
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-lease-'));
  database = await createPersistedDatabase(dataDir);
  // The schema (media_leader) as the product makes it.
  await (await database.open()).close();
  admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await admin.connect();
});

afterEach(async () => {
  for (const lease of leases) await lease.close();
  leases = [];
  await admin?.query('delete from media_leader');
});

afterAll(async () => {
  await admin?.end();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(process.env.DATABASE_URL)('the media lease on PostgreSQL', () => {
  it('the first instance leads with epoch 1; the second follows and leaves the row alone', async () => {
    const a = instance('a');
    const b = instance('b');
    expect(await a.lease.start()).toBe('leading');
    expect(await a.lease.announce('http://a.test:3000')).toBe(1);
    expect(a.lease.epoch).toBe(1);
    expect(await b.lease.start()).toBe('following');
    expect(b.lease.epoch).toBeNull();
    // B keeps trying; A keeps the lock.
    b.clock.advance(LEASE_RETRY_MS * 3);
    expect(await b.lease.leader()).toMatchObject({ instanceId: 'a', url: 'http://a.test:3000' });
    expect(b.lease.state).toBe('following');
    expect(await row()).toMatchObject({ instanceId: 'a', epoch: 1 });
  });

  it('the leader stamps its heartbeat; a row taken by a newer epoch makes it lose the lease', async () => {
    const a = instance('a');
    await a.lease.start();
    await a.lease.announce('http://a.test:3000');
    const before = (await row())!.heartbeatAt;
    await admin.query("update media_leader set heartbeat_at = now() - interval '1 minute'");
    a.clock.advance(LEASE_HEARTBEAT_MS);
    await waitUntil(
      async () => ((await row())!.heartbeatAt > before ? true : undefined),
      'the heartbeat to be stamped',
    );
    await admin.query('update media_leader set epoch = epoch + 1');
    a.clock.advance(LEASE_HEARTBEAT_MS);
    await waitUntil(() => (a.lost.length > 0 ? true : undefined), 'A to lose the lease');
    expect(a.lease.state).toBe('lost');
  });

  it('the leader’s session ends (a crash): it is told, and the follower leads with epoch 2', async () => {
    const a = instance('a');
    const b = instance('b');
    await a.lease.start();
    await a.lease.announce('http://a.test:3000');
    await b.lease.start();
    // What a SIGKILL does to A's session: PostgreSQL ends it and its advisory lock goes.
    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'leadline-media-lease' and pid in (select pid from pg_locks where locktype = 'advisory' and granted)",
    );
    await waitUntil(() => (a.lost.length > 0 ? true : undefined), 'A to lose the lease');
    b.clock.advance(LEASE_RETRY_MS);
    await waitUntil(() => (b.lease.state === 'leading' ? true : undefined), 'B to lead');
    expect(b.led).toEqual([1]);
    expect(await b.lease.announce('http://b.test:3000')).toBe(2);
    expect(b.lease.epoch).toBe(2);
    expect(await row()).toMatchObject({ instanceId: 'b', url: 'http://b.test:3000', epoch: 2 });
  });

  it('the leader closes (a clean stop): the follower leads at its next try', async () => {
    const a = instance('a');
    const b = instance('b');
    await a.lease.start();
    await a.lease.announce('http://a.test:3000');
    await b.lease.start();
    await a.lease.close();
    expect(a.lost).toEqual([]);
    b.clock.advance(LEASE_RETRY_MS);
    await waitUntil(() => (b.lease.state === 'leading' ? true : undefined), 'B to lead');
    expect(b.led).toEqual([1]);
    expect(await b.lease.announce('http://b.test:3000')).toBe(2);
  });
});
