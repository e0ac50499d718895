/**
 * Two instances started the same way on one PostgreSQL database (issue 38, item 3): the product
 * as `npm start` runs it (child processes, real engine, sandbox phone network), no
 * `VOICE_MEDIA_URL`. The first takes the media lease and runs the calls; the second follows and
 * relays to it; the second takes over when the first is killed or stopped.
 *
 * - Starting B leaves A's live call alone: the call stays in progress, the agent `on_call`, and
 *   keeps hearing the lead.
 * - A lead posted to B is routed by A and rings an agent whose softphone registered through B.
 * - SIGKILL A: B leads within 10 s with epoch 2, accepts a lead and rings an agent logged in
 *   through it, who hears the lead.
 * - SIGTERM A: B leads (the lease is released as A closes).
 * - A loses its lease connection (PostgreSQL ends the session): A exits with status 1 at once,
 *   B leads.
 * - Three instances, the leader killed: a lead posted to a follower before anyone leads again is
 *   held for the new leader, stored, and offered to the first agent who registers.
 *
 * Needs PostgreSQL (`DATABASE_URL`); CI runs it in its second pass of the server tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { calls } from '../db/schema';
import { AgentClient } from '../test-support/agent-client';
import { ChildLeadline } from '../test-support/child-leadline';
import { requestJson } from '../test-support/http-json';
import type { HttpResult } from '../test-support/http-json';
import { HttpSession } from '../test-support/http-session';
import {
  createPersistedDatabase,
  type PersistedDatabase,
} from '../test-support/persisted-database';
import { waitUntil } from '../test-support/wait-until';

const LEAD_TONE_HZ = 440;
const TEST_TIMEOUT_MS = 300_000;
/** The bound: a follower leads within 10 s of the leader's death. */
const TAKEOVER_MS = 10_000;

let dataDir: string;
let databases: PersistedDatabase[] = [];
let started: ChildLeadline[] = [];

interface Health {
  ok: true;
  media?: { role: 'leader' | 'follower'; epoch: number | null };
}

const healthOf = async (product: ChildLeadline): Promise<Health> =>
  (await requestJson<Health>('GET', `${product.url}/healthz`)).body;

/** Starts an instance on `database`, the same settings as every other. */
async function startInstance(name: string, database: PersistedDatabase): Promise<ChildLeadline> {
  const product = await ChildLeadline.start({
    dataDir: join(dataDir, name),
    env: {
      ...database.env,
      TOKEN_SECRET: 'media-failover-token-secret-0123456789abcdef',
      PUSHER_SECRET: 'media-failover-pusher-secret-0123',
    },
  });
  started.push(product);
  return product;
}

async function scratchDatabase(): Promise<PersistedDatabase> {
  const database = await createPersistedDatabase(dataDir);
  databases.push(database);
  return database;
}

/** Waits until `product` says it leads; resolves with its epoch. */
async function leads(product: ChildLeadline, timeoutMs: number): Promise<number> {
  return waitUntil(
    async () => {
      const health = await healthOf(product).catch(() => undefined);
      return health?.media?.role === 'leader' && health.media.epoch !== null
        ? health.media.epoch
        : undefined;
    },
    `${product.url} to lead the media`,
    timeoutMs,
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-failover-'));
});

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') {
    for (const product of started) {
      const said = product
        .output()
        .split('\n')
        .filter((line) => !/"(incoming request|request completed)"/.test(line));
      console.error(`${product.url}:\n${said.slice(-40).join('\n')}`);
    }
  }
  for (const product of started.reverse()) {
    await product.stop();
    await product.dispose();
  }
  started = [];
}, 180_000);

afterAll(async () => {
  for (const database of databases) await database.drop();
  databases = [];
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe.runIf(process.env.DATABASE_URL)('one media leader, hot standbys', () => {
  it(
    'B started beside A leaves A’s call alone and relays to it; killed, A’s place is taken by B, which rings an agent logged in through it',
    async () => {
      const database = await scratchDatabase();
      const a = await startInstance('a', database);
      expect(await healthOf(a)).toEqual({ ok: true, media: { role: 'leader', epoch: 1 } });

      // agent1 on a live call through A.
      const observer = await HttpSession.login(a.url, 'supervisor@example.com');
      const first = await AgentClient.login(a.agentProduct(observer), 'agent1@example.com');
      const posted = await a.postLead({
        fname: 'Ann',
        lname: 'Live',
        phone_number: '+15550100051',
      });
      expect(posted.status).toBe(201);
      expect(posted.body.call).toMatchObject({ status: 'ringing', agent_id: first.userId });
      await first.accept(await first.nextInvite());
      expect(await first.hears(LEAD_TONE_HZ, 1)).toBe(true);
      const callId = posted.body.call.id;

      // B starts on the same database: it follows, and A's call and agent are as they were.
      const b = await startInstance('b', database);
      expect(await healthOf(b)).toEqual({ ok: true, media: { role: 'follower', epoch: 1 } });
      expect(await healthOf(a)).toEqual({ ok: true, media: { role: 'leader', epoch: 1 } });
      const snapshot = await database.openSnapshot();
      try {
        const [call] = await snapshot.db
          .select({ status: calls.status })
          .from(calls)
          .where(eq(calls.id, callId));
        expect(call?.status).toBe('in-progress');
      } finally {
        await snapshot.close();
      }
      expect(await observer.presenceOf(first.userId)).toMatchObject({
        status: 'on_call',
        is_online_app: true,
        on_call_id: callId,
      });
      expect(await first.hears(LEAD_TONE_HZ, 1)).toBe(true);

      // Through B: a login is served, an agent's softphone registers (relayed to A), and a
      // lead posted to B is routed by A to that agent (agent1 is busy).
      const observerOnB = observer.on(b.url);
      const second = await AgentClient.login(b.agentProduct(observerOnB), 'agent2@example.com');
      const viaB = await b.postLead({ fname: 'Ben', lname: 'Relay', phone_number: '+15550100052' });
      expect(viaB.status).toBe(201);
      expect(viaB.body.call).toMatchObject({ status: 'ringing', agent_id: second.userId });
      await second.accept(await second.nextInvite());
      expect(await second.hears(LEAD_TONE_HZ, 1)).toBe(true);

      // A dies. B takes the lease, starts the media on its port, runs recovery.
      const killedAt = performance.now();
      await a.kill();
      const epoch = await leads(b, TAKEOVER_MS);
      console.info(`B led ${(performance.now() - killedAt).toFixed(0)} ms after A was killed`);
      expect(epoch).toBe(2);

      // Their softphones' sockets went with A. agent1 logs in again through B, now the leader,
      // and a lead posted to B rings them.
      for (const agent of [first, second]) await agent.close();
      const observerAfter = await HttpSession.login(b.url, 'supervisor@example.com');
      const third = await AgentClient.login(b.agentProduct(observerAfter), 'agent1@example.com');
      // The call recovery closed leaves agent1 in wrap-up: done.
      expect((await third.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);
      const after = await b.postLead({
        fname: 'Cy',
        lname: 'After',
        phone_number: '+15550100053',
      });
      expect(after.status).toBe(201);
      expect(after.body.call).toMatchObject({ status: 'ringing', agent_id: third.userId });
      await third.accept(await third.nextInvite());
      expect(await third.hears(LEAD_TONE_HZ, 1)).toBe(true);
      await third.hangup();
      await third.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'SIGTERM on the leader hands the lease over: the follower leads with the next epoch',
    async () => {
      const database = await scratchDatabase();
      const a = await startInstance('c', database);
      const b = await startInstance('d', database);
      expect((await healthOf(b)).media).toEqual({ role: 'follower', epoch: 1 });
      expect(await a.stop()).toEqual({ code: 0, signal: null });
      expect(await leads(b, TAKEOVER_MS)).toBe(2);
      // A restarted follows B.
      const again = await startInstance('c', database);
      expect((await healthOf(again)).media).toEqual({ role: 'follower', epoch: 2 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'three instances, the leader killed: a lead posted to a follower meanwhile is held for the new leader and offered once it is up',
    async () => {
      const database = await scratchDatabase();
      const a = await startInstance('e', database);
      const b = await startInstance('f', database);
      const c = await startInstance('g', database);
      await a.kill();
      // Posted to both followers before either leads: the one that stays a follower holds its
      // lead for the new leader (the other closes its relay to lead, and may refuse).
      const phones = new Map([
        [b, '+15550100061'],
        [c, '+15550100062'],
      ]);
      const posting = new Map(
        [b, c].map((product) => [
          product,
          product
            .postLead({ fname: 'Held', lname: 'Lead', phone_number: phones.get(product)! })
            .catch(() => null),
        ]),
      );
      const leader = await waitUntil(
        async () => {
          for (const product of [b, c]) {
            const health = await healthOf(product).catch(() => undefined);
            if (health?.media?.role === 'leader' && health.media.epoch !== null) return product;
          }
          return undefined;
        },
        'B or C to lead',
        TAKEOVER_MS,
      );
      expect((await healthOf(leader)).media?.epoch).toBe(2);
      const follower = leader === b ? c : b;
      const held = (await posting.get(follower)) as HttpResult<{
        call: { status: string };
      }> | null;
      expect(held?.status).toBe(201);
      // Nobody is registered with the new leader yet: the lead waits in the queue.
      expect(held?.body.call.status).toBe('queued');

      const observer = await HttpSession.login(follower.url, 'supervisor@example.com');
      const agent = await AgentClient.login(follower.agentProduct(observer), 'agent1@example.com');
      let invite = await agent.nextInvite();
      if (invite.parameters.To !== phones.get(follower)) {
        // The other lead got through too (posted to the leader once it was up): take it first.
        await agent.accept(invite);
        await agent.hangup();
        expect((await agent.api('POST', '/api/v1/user/wrap-up/done')).status).toBe(200);
        invite = await agent.nextInvite();
      }
      expect(invite.parameters).toMatchObject({ To: phones.get(follower) });
      await agent.accept(invite);
      expect(await agent.hears(LEAD_TONE_HZ, 1)).toBe(true);
      await agent.hangup();
      await agent.close();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a leader whose lease connection is lost exits with status 1, and the follower leads',
    async () => {
      const database = await scratchDatabase();
      const a = await startInstance('h', database);
      const b = await startInstance('i', database);
      const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ ended: boolean }>(
          `select pg_terminate_backend(pid) as ended from pg_stat_activity
           where datname = current_database() and application_name = 'leadline-media-lease'
             and pid in (select pid from pg_locks where locktype = 'advisory' and granted)`,
        );
        expect(rows).toEqual([{ ended: true }]);
      } finally {
        await admin.end();
      }
      expect(await a.exited).toEqual({ code: 1, signal: null });
      expect(await leads(b, TAKEOVER_MS)).toBe(2);
    },
    TEST_TIMEOUT_MS,
  );
});
